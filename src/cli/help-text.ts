/**
 * What the help says beyond the commands' flags: the top-level sections (sandbox, configuration,
 * trust, MCP, sessions, environment, exit codes) and the sections of `clanka help run`. Kept as
 * paragraphs and rows so that help.ts can fit them to the terminal's width.
 */
import { conversationKeys } from "./slash-commands.ts"

/** A paragraph, or rows of a two-column table (term, description). */
export type Block = { text: string } | { rows: Array<[string, string]> }

export interface Section {
  title: string
  blocks: Block[]
}

export const exitCodes: Section = {
  title: "EXIT CODES",
  blocks: [
    {
      rows: [
        ["0", "success"],
        ["1", "the task failed (model error after retries, max turns, schema never satisfied, script threw in exec, tool failed)"],
        ["2", "bad usage or bad input (unknown flag, missing key, unreadable file, bad parameters, no OS sandbox backend can start: --sandbox off runs without)"],
        ["3", "the executor was lost (remote died, ssh failed)"],
        ["130", "interrupted (Ctrl-C, SIGTERM, SIGHUP, or the reader of stdout left)"],
      ],
    },
  ],
}

export const topLevelSections: Section[] = [
  {
    title: "OPTIONS",
    blocks: [
      {
        rows: [
          ["-h, --help", "print this help (clanka help COMMAND or clanka COMMAND --help for one command)"],
          ["-v, --version", "print the version"],
        ],
      },
    ],
  },
  {
    title: "SANDBOX (run, exec, tool; --sandbox MODE)",
    blocks: [
      {
        rows: [
          ["workspace-write", "scripts may write the workspace (-C), /tmp and the --writable DIRs; network off (--network turns it on); the default"],
          ["read-only", "scripts may write nothing; network off (--network turns it on)"],
          ["off", "scripts may write anywhere; network on"],
        ],
      },
      { text: "In workspace-write, git hooks and config, clanka.json, .mcp.json and .clanka/ stay read-only unless --writable names them (--writable .git/hooks)." },
      {
        text:
          "Scripts always run in a separate executor process whose environment is an allow-list (PATH, HOME, USER, LOGNAME, LANG, LC_*, TERM, TZ, TMPDIR, SHELL; --env NAME adds one): the model keys never reach them. webSearch runs on the agent's side with EXA_API_KEY.",
      },
      {
        text:
          "In the OS sandbox scripts hold no capabilities (root included), cannot reach the host's unix sockets without --network, get a /tmp of --tmp-size (default 1G) and at most 1,024 processes, and find ~/.ssh, ~/.aws, ~/.netrc and the other credential stores empty (--readable PATH shows one).",
      },
      {
        text:
          "The OS sandbox is bubblewrap, else Landlock with seccomp (--sandbox-backend auto|bwrap|landlock; under Landlock /tmp is $TMPDIR and loopback is off too); with neither, scripts do not run (exit 2) unless --sandbox off.",
      },
    ],
  },
  {
    title: "CONFIGURATION (clanka config prints the merged values and their files)",
    blocks: [
      {
        rows: [
          [
            "clanka.json",
            "project defaults (model, subagentModel, sandbox, network, writable, env, output, maxTurns, turnTimeout, system, remoteBin, mcpServers, hooks), read from -C DIR and its parents up to the repository root; the nearest wins",
          ],
          [".mcp.json", "the project's MCP servers, as other agents write them"],
          ["$XDG_CONFIG_HOME/clanka/config.json", "the user's defaults (below the project's)"],
          ["AGENTS.md", "instructions for the model, from the repository root down to -C DIR (CLAUDE.md where a directory has none), after the user's $XDG_CONFIG_HOME/clanka/AGENTS.md"],
          ["skills", "folders with a SKILL.md under .agents/skills/, .claude/skills/ and $XDG_CONFIG_HOME/clanka/skills/ (clanka skills lists them)"],
        ],
      },
      { text: "Flags (and CLANKA_MODEL) beat the files. A mistake is exit 2 naming the file and the key." },
    ],
  },
  {
    title: "TRUST (the project's files widen nothing until you trust them)",
    blocks: [
      {
        rows: [
          ["clanka trust [DIR]", "trust DIR's clanka.json and .mcp.json files as they are now (default cwd); a file created, changed or deleted later is untrusted again"],
          ["clanka trust --list", 'trusted directories: "trusted" or "changed since trusted"'],
          ["clanka trust --remove DIR", "stop trusting DIR"],
          ["--trust-project", "trust them for one run (also CLANKA_TRUST_PROJECT=1)"],
        ],
      },
      {
        text:
          "Untrusted, only model, subagentModel, output, maxTurns, turnTimeout, system, a stricter sandbox and network: false apply; their MCP servers never start and ${VAR} in them is never expanded.",
      },
    ],
  },
  {
    title: "MCP",
    blocks: [
      {
        text:
          'mcpServers: {"name": {"command", "args", "env", "cwd"}} runs on the executor\'s side (beside its sandbox, in a sandbox of its own; also over --ssh); {"type": "http", "url", "headers"} on the agent\'s side. Scripts call await mcp.<name>.<tool>(args); clanka tool mcp.<name>.<tool> JSON calls one tool.',
      },
      { text: "clanka mcp serves execute itself as an MCP tool on stdio (-C, --ssh, --sandbox apply)." },
    ],
  },
  {
    title: "SESSIONS (run)",
    blocks: [
      {
        text:
          "Every run is saved as it happens (one JSONL file per session, directory 0700, files 0600, no keys) in $CLANKA_HOME/sessions, else $XDG_STATE_HOME/clanka/sessions, else ~/.local/state/clanka/sessions.",
      },
      {
        rows: [
          ["--continue", "go on from the newest session of this directory (or --ssh/--executor target)"],
          ["--resume ID", "go on from session ID (a unique prefix is enough), same id"],
          ["--fork ID", "a new session starting from a copy of session ID"],
          ["--no-session", "keep the run in memory only (also CLANKA_NO_SESSION=1)"],
        ],
      },
      {
        rows: [
          ["clanka sessions [--json] [--all]", "list sessions (this directory's, or all)"],
          ["clanka sessions show ID [--json|-o F]", "replay a session's events"],
        ],
      },
    ],
  },
  {
    title: "ENVIRONMENT",
    blocks: [
      {
        rows: [
          ["ANTHROPIC_API_KEY", "key of the anthropic/… models"],
          ["ANTHROPIC_BASE_URL", "Anthropic API URL (default https://api.anthropic.com)"],
          ["OPENAI_API_KEY", "key of the openai/… models (optional for openai-compatible/…)"],
          ["OPENAI_BASE_URL", "OpenAI API URL (default https://api.openai.com/v1); the server of openai-compatible/… models"],
          ["CLANKA_MODEL", "the default --model"],
          ["EXA_API_KEY", "key of webSearch (EXA_BASE_URL: another Exa endpoint)"],
          ["CLANKA_REMOTE_BIN", "path of clanka on --ssh hosts (default clanka)"],
          ["CLANKA_PING_MS", "liveness ping interval in ms (default 5000); an executor silent for six of them (30 s) is lost: exit 3"],
          ["CLANKA_SCRIPT_MEMORY_MB", "scripts are stopped past this executor memory (default 4096)"],
          ["CLANKA_SEARCH_ENGINE", "rg or builtin: force rg()'s engine"],
          ["CLANKA_BWRAP", "the bubblewrap binary (default bwrap on PATH)"],
          ["CLANKA_SANDBOX_BACKEND", "auto, bwrap or landlock: the OS sandbox (--sandbox-backend)"],
          ["XDG_CONFIG_HOME", "the user's clanka/config.json, AGENTS.md and skills/ (default ~/.config)"],
          ["CLANKA_HOME", "where sessions and trusted projects are saved ($CLANKA_HOME/sessions, $CLANKA_HOME/trust.json)"],
          ["XDG_STATE_HOME", "sessions and trust.json in $XDG_STATE_HOME/clanka (default ~/.local/state)"],
          ["CLANKA_TRUST_PROJECT=1", "trust the project's clanka.json and .mcp.json (--trust-project)"],
          ["CLANKA_NO_SESSION=1", "do not save runs"],
          ["CLANKA_QUEUE_LOCK_MS", "how long a worker's hold on a queued task lasts unrenewed (default 10000); a lost worker's task moves on within about 1.5 times that"],
          ["NO_COLOR", "no colours"],
          ["COLUMNS", "the width of the help (default: the terminal's, else 80)"],
          ["CLANKA_DEBUG=1", "add the stack trace to an error"],
        ],
      },
    ],
  },
  exitCodes,
]

/** What `clanka help run` adds after the flags. */
export const runSections: Section[] = [
  {
    title: "CONVERSATION (no prompt on a terminal: each line is a request)",
    blocks: [{ rows: conversationKeys }],
  },
  exitCodes,
]
