/**
 * What each command is called, says and accepts: the name, the description and the flags, as
 * data. The help, the argument checks and the usage errors read them from here without loading a
 * command's module (which brings the model SDKs, the agent, the config schemas); a command's
 * module spreads its entry into its citty definition. Imports nothing at run time, so
 * `clanka help` and `clanka run --bogus` cost no more than reading the arguments.
 */
import type { ArgsDef } from "citty"

/** The OS sandbox's flags, shared by run, exec, tool and executor. */
export const sandboxArgs = {
  sandbox: {
    type: "string",
    description: "workspace-write (the default of run, exec, tool; clanka executor: none unless given), read-only or off",
    valueHint: "MODE",
  },
  "sandbox-backend": {
    type: "string",
    description: "the OS sandbox: auto (bubblewrap, else Landlock), bwrap or landlock (CLANKA_SANDBOX_BACKEND)",
    valueHint: "NAME",
  },
  network: { type: "boolean", description: "let scripts reach the network from inside the sandbox" },
  writable: { type: "string", description: "another writable directory (repeatable)", valueHint: "DIR", repeatable: true },
  readable: {
    type: "string",
    description: "leave this credential store (~/.ssh, ~/.netrc, ...) visible to scripts (repeatable)",
    valueHint: "PATH",
    repeatable: true,
  },
  "tmp-size": { type: "string", description: "size of the sandbox's private /tmp: bytes, or with K, M, G (default 1G)", valueHint: "SIZE" },
} as const

/** --max-scripts: `clanka executor`'s, and passed on to it by the commands that start one. */
export const maxScriptsArg = {
  "max-scripts": {
    type: "string",
    description: "scripts the executor runs at once; the rest wait their turn (default: 4 per core, at most one per 256 MiB of memory, at least 2)",
    valueHint: "N",
  },
} as const

/** Flags that choose where scripts run; shared by run, exec, tool, tools and mcp. */
export const executorArgs = {
  directory: { type: "string", alias: "C", description: "working directory (default: cwd)", valueHint: "DIR" },
  executor: { type: "string", description: "spawn CMD and speak the executor protocol on its stdio", valueHint: "CMD" },
  ssh: {
    type: "string",
    description: "run on [NAME=][USER@]HOST[:DIR] through the system ssh; repeatable (exec: on every host; run: on the first, delegate() to the others)",
    valueHint: "HOST",
    repeatable: true,
  },
  "remote-bin": { type: "string", description: "path of clanka on the remote host (default $CLANKA_REMOTE_BIN or clanka)", valueHint: "PATH" },
  upload: {
    type: "boolean",
    default: true,
    description: "copy this clanka to an --ssh host that lacks it, into ~/.cache/clanka/bin there",
    negativeDescription: "never copy clanka to the host: a host without it is exit 3",
  },
  ...(sandboxArgs as unknown as ArgsDef),
  ...maxScriptsArg,
  env: { type: "string", description: "pass this environment variable to the executor (repeatable)", valueHint: "NAME", repeatable: true },
  search: { type: "boolean", default: true, description: "offer the search(query) tool", negativeDescription: "no search(query) tool and no index" },
  "embed-model": { type: "string", description: "search also ranks by embeddings from openai/MODEL or openai-compatible/MODEL (keys stay here)", valueHint: "PROVIDER/MODEL" },
  "trust-project": { type: "boolean", description: "obey this project's clanka.json and .mcp.json for this run without clanka trust (also CLANKA_TRUST_PROJECT=1)" },
} as const

/** `clanka run`'s session flags (session-flags.ts reads them). */
/** The same, for the commands that work with one executor (tool, tools, skills, mcp): --ssh names one host. */
export const oneExecutorArgs = {
  ...executorArgs,
  // Read as repeatable still, so that a second host gets the line naming the commands that take several.
  ssh: { type: "string", description: "run on [USER@]HOST[:DIR] through the system ssh (one host)", valueHint: "HOST", repeatable: true },
} as const

export const sessionArgs = {
  continue: { type: "boolean", description: "go on from the newest session of this directory (or --ssh/--executor target)" },
  resume: { type: "string", description: "go on from session ID (a unique prefix is enough; see clanka sessions)", valueHint: "ID" },
  fork: { type: "string", description: "start a new session from a copy of session ID", valueHint: "ID" },
  session: {
    type: "boolean",
    description: "save this run as a session (the default)",
    negativeDescription: "keep this run in memory only (also CLANKA_NO_SESSION=1)",
    default: true,
  },
} as const

export const run = {
  meta: { name: "run", description: "Run the agent on a task (or talk to it when no prompt is given on a terminal)" },
  args: {
    prompt: { type: "positional", required: false, description: 'the task (all words); "-" reads it from stdin', valueHint: "PROMPT" },
    model: { type: "string", alias: "m", description: "provider/model[:effort] (default $CLANKA_MODEL, else chosen by the API key that is set)", valueHint: "SPEC" },
    "subagent-model": { type: "string", description: "model of delegate() sub-agents (default: --model)", valueHint: "SPEC" },
    ...executorArgs,
    output: { type: "string", alias: "o", description: "pretty | ndjson | text (default: pretty on a terminal, else text)", valueHint: "FORMAT" },
    json: { type: "boolean", description: "same as --output ndjson" },
    "json-schema": { type: "string", description: "the result must validate against this JSON Schema file", valueHint: "FILE" },
    "max-turns": { type: "string", description: "stop with an error after N model turns", valueHint: "N" },
    "turn-timeout": { type: "string", description: "inactivity timeout of one model turn in seconds (default 300)", valueHint: "SECONDS" },
    system: { type: "string", description: "extra system instructions", valueHint: "TEXT" },
    image: { type: "string", description: "show the model an image with the prompt: PNG, JPEG, GIF or WebP (repeatable)", valueHint: "FILE", repeatable: true },
    ...sessionArgs,
    "compact-at": { type: "string", description: "compact the history before a request above N tokens (default 80% of the model's window)", valueHint: "TOKENS" },
    "max-budget-usd": { type: "string", description: "stop after the script in flight once the run has cost N US dollars (sub-agents included)", valueHint: "N" },
    "max-depth": { type: "string", description: "how deep sub-agents nest (default 1: sub-agents do not delegate; 0: no sub-agents)", valueHint: "N" },
    input: { type: "string", description: 'ndjson: read {"type":"prompt"|"steer"|"cancel","text"} lines from stdin (the output is --json)', valueHint: "FORMAT" },
  },
} as const

export const exec = {
  meta: { name: "exec", description: "Run one code-mode script without a model and print its output" },
  args: {
    file: { type: "positional", required: false, description: "script file, or - for stdin", valueHint: "FILE|-" },
    eval: { type: "string", alias: "e", description: "the script itself", valueHint: "CODE" },
    timeout: { type: "string", description: "time limit of the script in seconds (default 600)", valueHint: "SECONDS" },
    json: { type: "boolean", description: "print one JSON result per host: host, ssh, exitCode, output, error, taskComplete, durationMs" },
    ...executorArgs,
  },
} as const

export const tool = {
  meta: { name: "tool", description: "Call one tool directly and print its JSON result" },
  args: {
    name: { type: "positional", required: true, description: "tool name (clanka tools lists them)", valueHint: "NAME" },
    params: {
      type: "positional",
      required: false,
      description: "parameters as JSON (a plain string for tools that take one); - reads them from stdin",
      valueHint: "JSON",
    },
    ...oneExecutorArgs,
  },
} as const

export const tools = {
  meta: { name: "tools", description: "Print the tool declarations the model sees (of the executor given with --ssh or --executor)" },
  args: { ...oneExecutorArgs },
} as const

export const skills = {
  meta: { name: "skills", description: "List the skills the model is offered: the project's (.agents/skills, .claude/skills) and the user's" },
  args: {
    ...oneExecutorArgs,
    json: { type: "boolean", description: "one JSON object per line: name, description, path, scope" },
  },
} as const

export const executor = {
  meta: { name: "executor", description: "Serve the executor protocol (JSON-RPC, one message per line) on stdin/stdout." },
  args: {
    directory: { type: "string", alias: "C", description: "Directory the tools work in (default: the current directory)" },
    ...sandboxArgs,
    ...maxScriptsArg,
    search: { type: "boolean", default: true, description: "offer the search(query) tool", negativeDescription: "no search(query) tool and no index" },
  },
} as const

export const config = {
  meta: { name: "config", description: "Print the merged configuration and where each value came from" },
  args: {
    directory: { type: "string", alias: "C", description: "the project directory (default: cwd)", valueHint: "DIR" },
    json: { type: "boolean", description: "print {config, sources, files: [{path, trust, ignored}]} as JSON" },
    "trust-project": { type: "boolean", description: "show the project's files as trusted for a run with --trust-project (also CLANKA_TRUST_PROJECT=1)" },
  },
} as const

export const trust = {
  meta: { name: "trust", description: "Trust a project's clanka.json and .mcp.json (sandbox, MCP servers, env) as they are now" },
  args: {
    directory: { type: "positional", required: false, description: "the project directory (default: cwd)", valueHint: "DIR" },
    list: { type: "boolean", description: "list the trusted directories and whether their files changed since" },
    remove: { type: "string", description: "stop trusting DIR", valueHint: "DIR" },
  },
} as const

export const mcp = {
  meta: { name: "mcp", description: "Serve execute (code mode with clanka's tools) as an MCP server on stdio" },
  args: { ...oneExecutorArgs },
} as const

export const sessions = {
  meta: { name: "sessions", description: "List saved sessions, or replay one (clanka sessions show ID)" },
  args: {
    action: { type: "positional", required: false, description: '"show" to replay a session', valueHint: "show" },
    id: { type: "positional", required: false, description: "the session to show (a unique prefix is enough)", valueHint: "ID" },
    json: { type: "boolean", description: "one JSON object per line (show: the events as run --json printed them)" },
    all: { type: "boolean", description: "sessions of every directory, not only this one" },
    output: { type: "string", alias: "o", description: "show: pretty | ndjson | text (default: pretty on a terminal, else text)", valueHint: "FORMAT" },
  },
} as const

export const summary = {
  meta: { name: "summary", description: "Render a run's saved --json events as Markdown for a CI job summary" },
  args: {
    file: { type: "positional", required: true, description: "the events clanka run --json printed, or - for stdin", valueHint: "FILE|-" },
    git: { type: "string", description: "list the files changed in the git work tree DIR (git status)", valueHint: "DIR" },
    since: { type: "string", description: "with --git: the files changed since REV, commits included", valueHint: "REV" },
    json: { type: "boolean", description: "print the facts as one JSON object instead of Markdown" },
    get: { type: "string", description: "print one fact as plain text (e.g. sessionId, costUsd, turns, summary)", valueHint: "NAME" },
  },
} as const

/** run's flags that choose the model, the executor and the sandbox: not the prompt, the output, the images or the session to go on from. */
const acpFlags = [
  "model",
  "subagent-model",
  ...Object.keys(executorArgs).filter((name) => name !== "directory"),
  "max-turns",
  "turn-timeout",
  "system",
  "session",
  "compact-at",
  "max-budget-usd",
  "max-depth",
]

export const acp = {
  meta: { name: "acp", description: "Serve the Agent Client Protocol on stdin/stdout for an editor; each session works in the editor's directory" },
  args: {
    ...(Object.fromEntries(Object.entries(run.args).filter(([name]) => acpFlags.includes(name))) as ArgsDef),
    // Each ACP session is saved, and every prompt of it is a run.
    session: { ...sessionArgs.session, description: "save each ACP session as a clanka session (the default; session/load needs it)" },
  },
} as const

/** The agent flags `clanka batch` and `clanka worker` pass on to every task's run. */
export const agentArgs = {
  model: { type: "string", alias: "m", description: "provider/model[:effort] of tasks without a model of their own (default as for clanka run)", valueHint: "SPEC" },
  "subagent-model": { type: "string", description: "model of delegate() sub-agents (default: the task's model)", valueHint: "SPEC" },
  "max-turns": { type: "string", description: "stop a task with an error after N model turns (a task's maxTurns wins)", valueHint: "N" },
  "turn-timeout": { type: "string", description: "inactivity timeout of one model turn in seconds (default 300)", valueHint: "SECONDS" },
  system: { type: "string", description: "extra system instructions for every task", valueHint: "TEXT" },
  "compact-at": { type: "string", description: "compact a task's history before a request above N tokens", valueHint: "TOKENS" },
  "max-depth": { type: "string", description: "how deep sub-agents nest (default 1)", valueHint: "N" },
} as const

export const batch = {
  meta: { name: "batch", description: "Run one task per line of a JSONL file, each a clanka run session; print one JSON result line per task" },
  args: {
    tasks: { type: "positional", required: true, description: 'the tasks file: {"id"?, "prompt", "dir"? | "ssh"?, "model"?, "maxBudgetUsd"?, "maxTurns"?} per line; - reads stdin', valueHint: "TASKS.jsonl" },
    concurrency: { type: "string", description: "tasks running at once (default 4)", valueHint: "N" },
    retries: { type: "string", description: "resume a task whose executor was lost (exit 3) up to N times (default 2)", valueHint: "N" },
    "max-budget-usd": { type: "string", description: "the whole batch's budget: once spent, running tasks stop and the rest do not start", valueHint: "N" },
    "skip-done": { type: "string", description: "skip the tasks that have a result line with exit code 0 in FILE (append results to it with >>)", valueHint: "FILE" },
    queue: { type: "string", description: "put the tasks on a shared queue that clanka worker processes run, and collect their results", valueHint: "redis://HOST:PORT/NAME" },
    ...agentArgs,
    ...executorArgs,
  },
} as const

export const worker = {
  meta: { name: "worker", description: "Run the tasks of a shared queue (clanka batch --queue) on this machine until stopped" },
  args: {
    queue: { type: "string", description: "the queue to take tasks from", valueHint: "redis://HOST:PORT/NAME" },
    concurrency: { type: "string", description: "tasks running at once on this machine (default 4)", valueHint: "N" },
    "rate-limit": { type: "string", description: "model requests per minute for all the queue's workers together (give every worker the same)", valueHint: "N" },
    ...agentArgs,
    ...executorArgs,
  },
} as const

export const help = {
  meta: { name: "help", description: "Print this help, or the help of COMMAND (the same as clanka COMMAND --help)" },
  args: {
    command: { type: "positional", required: false, description: "the command to explain", valueHint: "COMMAND" },
  },
} as const

export interface CommandSpec {
  meta: { name: string; description: string }
  args: ArgsDef
}

/** Every command, in the order the help lists them. */
export const commands: Record<string, CommandSpec> = { run, exec, tool, tools, skills, executor, config, trust, mcp, sessions, summary, acp, batch, worker, help }
