import { expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, clanka, MAIN } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

const directory = temporaryDirectory("clanka-summary-")
let files = 0

/** Writes events (objects, or raw lines as strings) to a file of their own. */
function stream(lines: (object | string)[], ending = "\n"): string {
  const file = join(directory, `events-${++files}.ndjson`)
  writeFileSync(file, lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n") + ending)
  return file
}

const usage = (input: number, output: number, cacheRead: number, cacheWrite: number, costUsd: number | null) => ({
  contextTokens: input + cacheRead + output,
  contextWindow: 200000,
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: cacheWrite,
  costUsd,
})
const start = {
  _tag: "AgentStart",
  id: "a1",
  prompt: "fix the tests",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  sessionId: "0b8f6c1e-2d3a-4f5b-9c7d-1e2f3a4b5c6d",
  resumedFrom: null,
  directory: "/work/repo",
  tools: ["readFile"],
  sandbox: { mode: "workspace-write", network: false },
}
const script = (text: string, output: string) => [
  { _tag: "ScriptStart" },
  { _tag: "ScriptDelta", delta: text },
  { _tag: "ScriptEnd" },
  { _tag: "ScriptOutput", output },
]

const finished = [
  start,
  { _tag: "ReasoningStart" },
  { _tag: "ReasoningDelta", delta: "Look first." },
  { _tag: "ReasoningEnd" },
  ...script("console.log(await readFile({path: 'x'}))", "null\n"),
  { _tag: "Usage", ...usage(1200, 80, 0, 3000, 0.0151), durationMs: 900 },
  { _tag: "ErrorRetry", error: { message: "overloaded", retryable: true, status: 529 } },
  ...script("await bash({command: 'npm test'})", "FAIL 2 tests\nThe script failed: Error: bash: exit 1: `npm test` | FAIL 2 tests"),
  { _tag: "Usage", ...usage(2400, 200, 2900, 3000, 0.0302), durationMs: 1100 },
  { _tag: "SubagentStart", id: "s1", prompt: "check the docs", provider: "anthropic", model: "claude-sonnet-4-5" },
  { _tag: "SubagentPart", id: "s1", part: { _tag: "ScriptOutput", output: "The script failed: SyntaxError: Unexpected token '<' (line 3)" } },
  { _tag: "SubagentComplete", id: "s1", summary: "docs fine" },
  ...script("await taskComplete('…')", "(no output)"),
  { _tag: "Usage", ...usage(3600, 420, 8700, 3000, 0.0489), durationMs: 1500 },
  {
    _tag: "AgentFinished",
    summary: "Fixed the **two** failing tests.\n\n```diff\n- a\n+ b",
    durationMs: 125_400,
    turns: 3,
    usage: usage(3600, 420, 8700, 3000, 0.0489),
  },
]

test("a finished run: the result, the numbers, the scripts that failed, exactly", async () => {
  const result = await clanka(["summary", stream(finished)])
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  expect(result.stdout).toBe(
    [
      "## ✅ clanka finished",
      "",
      "Fixed the **two** failing tests.",
      "",
      "```diff",
      "- a",
      "+ b",
      // The fence the model left open is closed: it does not swallow the rest of the report.
      "```",
      "",
      "| | |",
      "| --- | --- |",
      "| Model | `anthropic/claude-sonnet-4-5` |",
      "| Turns | 3 |",
      "| Tokens | 3,600 input · 420 output · 8,700 cache read · 3,000 cache write |",
      "| Cost | $0.0489 |",
      "| Duration | 2 min 5 s |",
      "| Scripts | 4 run, 2 failed |",
      "| Retries | 1 |",
      "| Session | `0b8f6c1e-2d3a-4f5b-9c7d-1e2f3a4b5c6d` |",
      "",
      "### Scripts that failed (2 of 4)",
      "",
      "- Script 2: ``Error: bash: exit 1: `npm test` | FAIL 2 tests``",
      "- Script 1 of sub-agent `s1`: `SyntaxError: Unexpected token '<' (line 3)`",
      "",
    ].join("\n"),
  )
})

test("a failed run: its exit code and error, escaped; the figures it got to; no duration", async () => {
  const file = stream([
    { ...start, resumedFrom: start.sessionId },
    ...script("await applyPatch(p)", "42\n"),
    { _tag: "Usage", ...usage(500, 50, 0, 0, null), durationMs: 700 },
    { _tag: "AgentError", message: "the run would cost more than --max-budget-usd 0.01 <stop> *now*", exitCode: 1 },
  ])
  const result = await clanka(["summary", file])
  expect(result.code).toBe(0)
  expect(result.stdout).toBe(
    [
      "## ❌ clanka failed (exit 1)",
      "",
      "> the run would cost more than --max-budget-usd 0.01 \\<stop\\> \\*now\\*",
      "",
      "| | |",
      "| --- | --- |",
      "| Model | `anthropic/claude-sonnet-4-5` |",
      "| Turns | 1 |",
      "| Tokens | 500 input · 50 output |",
      "| Cost | unknown (the model is not in the price table) |",
      "| Scripts | 1 run |",
      "| Session | `0b8f6c1e-2d3a-4f5b-9c7d-1e2f3a4b5c6d` (resumed) |",
      "",
    ].join("\n"),
  )
})

test("a cut-off stream: not-JSON and truncated lines are skipped with a note, the rest is reported", async () => {
  const file = stream(
    [
      "clanka: a log line that landed in the file",
      start,
      ...script("console.log(1)", "1\n"),
      { _tag: "Usage", ...usage(100, 10, 0, 0, 0.001), durationMs: 300 },
      { _tag: "SomethingNewer", value: 1 },
      "[1, 2]",
      '{"_tag":"ScriptOutput","output":"cut of',
    ],
    "",
  )
  const result = await clanka(["summary", file])
  expect(result.code).toBe(0)
  expect(result.stdout).toBe(
    [
      "## ⚠️ clanka did not finish",
      "",
      "> The event stream ends before the run did: clanka was stopped, or the file is cut off.",
      "",
      "| | |",
      "| --- | --- |",
      "| Model | `anthropic/claude-sonnet-4-5` |",
      "| Turns | 1 |",
      "| Tokens | 100 input · 10 output |",
      "| Cost | $0.0010 |",
      "| Scripts | 1 run |",
      "| Session | `0b8f6c1e-2d3a-4f5b-9c7d-1e2f3a4b5c6d` |",
      "",
      `_3 lines of ${file} were not events and skipped (lines 1, 9, 10)._`,
      "",
    ].join("\n"),
  )
})

test("--json prints the facts; --get one of them as plain text, null as an empty line; - reads stdin", async () => {
  const text = finished.map((event) => JSON.stringify(event)).join("\n") + "\n"
  const json = await clanka(["summary", "-", "--json"], { stdin: text })
  expect(json.code).toBe(0)
  expect(JSON.parse(json.stdout)).toEqual({
    status: "finished",
    exitCode: 0,
    summary: "Fixed the **two** failing tests.\n\n```diff\n- a\n+ b",
    sessionId: start.sessionId,
    resumedFrom: null,
    model: "anthropic/claude-sonnet-4-5",
    turns: 3,
    inputTokens: 3600,
    outputTokens: 420,
    cacheReadTokens: 8700,
    cacheWriteTokens: 3000,
    costUsd: 0.0489,
    durationMs: 125400,
    scripts: 4,
    failedScripts: [
      { index: 2, agent: null, error: "Error: bash: exit 1: `npm test` | FAIL 2 tests" },
      { index: 1, agent: "s1", error: "SyntaxError: Unexpected token '<' (line 3)" },
    ],
    retries: 1,
    skippedLines: [],
  })
  expect((await clanka(["summary", "-", "--get", "summary"], { stdin: text })).stdout).toBe("Fixed the **two** failing tests.\n\n```diff\n- a\n+ b\n")
  expect((await clanka(["summary", "-", "--get", "costUsd"], { stdin: text })).stdout).toBe("0.0489\n")
  expect((await clanka(["summary", "-", "--get", "resumedFrom"], { stdin: text })).stdout).toBe("\n")
})

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } })
  if (result.status !== 0) throw new Error(result.stderr)
  return result.stdout.trim()
}

test("--git DIR lists the work tree's changes collapsed; --since REV counts commits made since too", async () => {
  const repo = join(directory, "repo")
  mkdirSync(repo)
  git(repo, "init", "-q")
  for (const name of ["keep.ts", "edit.ts", "gone.ts", "old name.ts"]) writeFileSync(join(repo, name), `${name}\n`)
  git(repo, "add", ".")
  git(repo, "commit", "-qm", "start")
  const base = git(repo, "rev-parse", "HEAD")
  writeFileSync(join(repo, "committed.ts"), "new\n")
  git(repo, "add", "committed.ts")
  git(repo, "commit", "-qm", "by the agent")
  writeFileSync(join(repo, "edit.ts"), "changed\n")
  git(repo, "rm", "-q", "gone.ts")
  git(repo, "mv", "old name.ts", "new `name`.ts")
  mkdirSync(join(repo, "dir"))
  writeFileSync(join(repo, "dir", "untracked.ts"), "x\n")
  const file = stream(finished.slice(0, 1).concat(finished.slice(-1)))
  const tail = (stdout: string) => stdout.slice(stdout.indexOf("<details>"))

  const status = await clanka(["summary", file, "--git", repo])
  expect(status.stderr).toBe("")
  expect(tail(status.stdout)).toBe(
    [
      "<details>",
      "<summary>4 files changed</summary>",
      "",
      "- modified `edit.ts`",
      "- deleted `gone.ts`",
      "- renamed `old name.ts` → ``new `name`.ts``",
      "- untracked `dir/untracked.ts`",
      "",
      "</details>",
      "",
    ].join("\n"),
  )
  const since = await clanka(["summary", file, "--git", repo, "--since", base])
  expect(tail(since.stdout)).toBe(
    [
      "<details>",
      "<summary>5 files changed</summary>",
      "",
      "- added `committed.ts`",
      "- modified `edit.ts`",
      "- deleted `gone.ts`",
      "- renamed `old name.ts` → ``new `name`.ts``",
      "- untracked `dir/untracked.ts`",
      "",
      "</details>",
      "",
    ].join("\n"),
  )

  const clean = join(directory, "clean")
  mkdirSync(clean)
  git(clean, "init", "-q")
  expect((await clanka(["summary", file, "--git", clean])).stdout).toEndWith("| Session | `0b8f6c1e-2d3a-4f5b-9c7d-1e2f3a4b5c6d` |\n\nNo files changed.\n")
})

test("mistakes are exit 2 with one line", async () => {
  const file = stream(finished)
  const cases: [string[], string][] = [
    [["summary", join(directory, "missing.ndjson")], `clanka: cannot read ${join(directory, "missing.ndjson")}: ENOENT`],
    [["summary", stream(["not json", "{}"])], "holds no clanka events (write them with clanka run --json > FILE)"],
    [["summary", file, "--since", "HEAD"], "clanka: --since needs --git DIR (the work tree to compare)\n"],
    [["summary", file, "--get", "cost"], 'clanka: --get: unknown fact "cost"; facts: status, exitCode, summary, sessionId'],
    [["summary", file, "--json", "--get", "turns"], "clanka: --json and --get are exclusive"],
    [["summary", file, "--git", directory], `clanka: git status in ${directory} failed: not a git repository`],
    [["summary"], "clanka: missing FILE|- (see clanka summary --help)\n"],
  ]
  for (const [args, message] of cases) {
    const result = await clanka(args)
    expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: "" })
    expect(result.stderr).toContain(message)
    expect(result.stderr.split("\n").length).toBe(2)
  }
})

test("--git runs nothing the work tree set up: an fsmonitor in its config or in a nested repository the index names", async () => {
  const repo = join(directory, "hostile")
  const marker = join(directory, "fsmonitor-ran")
  mkdirSync(join(repo, "sub"), { recursive: true })
  git(repo, "init", "-q")
  writeFileSync(join(repo, "a.ts"), "a\n")
  git(repo, "add", ".")
  git(repo, "commit", "-qm", "start")
  const base = git(repo, "rev-parse", "HEAD")
  // What a script can leave behind: a repository of its own, added to the index as a submodule.
  const sub = join(repo, "sub")
  git(sub, "init", "-q")
  writeFileSync(join(sub, "f"), "f\n")
  git(sub, "add", "f")
  git(sub, "commit", "-qm", "x")
  writeFileSync(join(sub, "f"), "changed\n")
  git(repo, "update-index", "--add", "--cacheinfo", `160000,${git(sub, "rev-parse", "HEAD")},sub`)
  git(sub, "config", "core.fsmonitor", `touch ${marker}; false`)
  writeFileSync(join(repo, "a.ts"), "changed\n")
  const file = stream(finished.slice(0, 1).concat(finished.slice(-1)))
  for (const extra of [[], ["--since", base]]) {
    const result = await clanka(["summary", file, "--git", repo, ...extra])
    expect(result.stdout).toContain("- added `sub`")
    expect(result.stdout).toContain("- modified `a.ts`")
  }
  expect(existsSync(marker)).toBe(false)
  // The repository's own config too (the protected .git/config, changed while a run went on).
  git(repo, "config", "core.fsmonitor", `touch ${marker}; false`)
  expect((await clanka(["summary", file, "--git", repo])).stdout).toContain("- modified `a.ts`")
  expect(existsSync(marker)).toBe(false)
})

test("on a terminal the model's escape sequences are shown, not obeyed (--get too); piped they stay as written", async () => {
  const summary = "Done.\x1b]0;owned title\x07\x1b[2J\x1b[31mred"
  const file = stream([start, { ...finished.at(-1), summary }])
  // `script` gives clanka a terminal as its stdout.
  const onTerminal = (args: string[]) =>
    spawnSync("script", ["-qec", [BUN, MAIN, ...args].map((word) => `'${word}'`).join(" "), "/dev/null"], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } }).stdout
  // The Markdown leaves control characters out anyway; --get shows them as cat -v does.
  expect(onTerminal(["summary", file])).toContain("Done.]0;owned title[2J[31mred")
  expect(onTerminal(["summary", file, "--get", "summary"])).toBe("Done.^[]0;owned title^G^[[2J^[[31mred\r\n")
  expect((await clanka(["summary", file, "--get", "summary"])).stdout).toBe(`${summary}\n`)
})

test("attack: HTML the model's summary leaves open (a comment, <details>, <pre>, <textarea>, <script>) does not take in the rest of the report", async () => {
  const cases = ["All good.\n\n<!--", "All good. <!-- the rest is hidden", "<details><summary>All good.</summary>\n\nmore", "<pre>", "<textarea>", "<script>", "<style>", "<div>\n\n<details>", "`<!--` is kept as code\n\n<!-- done --> and <pre>x</pre>"]
  for (const summary of cases) {
    const file = stream([start, { _tag: "AgentFinished", summary, durationMs: 1000, turns: 1, usage: usage(10, 1, 0, 0, 0.001) }])
    const result = await clanka(["summary", file])
    expect(result.code).toBe(0)
    // As GitHub renders the job summary (CommonMark: an HTML block started by <!-- or <pre> runs
    // to its end marker, else to the end of the document).
    const html = Bun.markdown.html(result.stdout)
    const before = html.slice(0, html.indexOf("<td>Turns</td>"))
    expect({ summary, shown: html.includes("<td>Turns</td>") }).toEqual({ summary, shown: true })
    const open = ["details", "pre", "textarea", "script", "style", "div"].filter((tag) => (before.match(new RegExp(`<${tag}[\\s>]`, "g"))?.length ?? 0) > (before.match(new RegExp(`</${tag}>`, "g"))?.length ?? 0))
    const comment = before.replace(/<!--[\s\S]*?-->/g, "").includes("<!--")
    expect({ summary, open, comment }).toEqual({ summary, open: [], comment: false })
  }
  // A summary that closes what it opens is shown as written.
  const file = stream([start, { _tag: "AgentFinished", summary: "<details><summary>Log</summary>\n\nok\n\n</details>", durationMs: 1000, turns: 1, usage: usage(10, 1, 0, 0, 0.001) }])
  expect((await clanka(["summary", file])).stdout).toStartWith("## ✅ clanka finished\n\n<details><summary>Log</summary>\n\nok\n\n</details>\n\n| | |\n")
})

test("--git runs no filter driver or hook of the repository's own config (a repository a script made where the run worked)", async () => {
  const repo = join(directory, "made-by-a-script")
  const marker = join(directory, "filter-ran")
  mkdirSync(repo, { recursive: true })
  git(repo, "init", "-q")
  writeFileSync(join(repo, ".gitattributes"), "* filter=x\n")
  writeFileSync(join(repo, "a.ts"), "a\n")
  git(repo, "add", ".")
  git(repo, "commit", "-qm", "start")
  const base = git(repo, "rev-parse", "HEAD")
  git(repo, "config", "filter.x.clean", `sh -c 'touch ${marker}; cat'`)
  // Its index written by git status runs this hook; times that differ make git run the filter.
  writeFileSync(join(repo, ".git", "hooks", "post-index-change"), `#!/bin/sh\ntouch ${marker}\n`)
  Bun.spawnSync(["chmod", "+x", join(repo, ".git", "hooks", "post-index-change")])
  Bun.spawnSync(["touch", "-d", "2001-01-01", join(repo, "a.ts")])
  const file = stream(finished.slice(0, 1).concat(finished.slice(-1)))
  for (const extra of [[], ["--since", base]]) {
    const result = await clanka(["summary", file, "--git", repo, ...extra])
    expect(result.code).toBe(0)
    expect(existsSync(marker)).toBe(false)
  }
})
