// Item 1 of sessions: every run is saved as it happens, in the right place with the right modes,
// with no key in it; --no-session and CLANKA_NO_SESSION keep a run in memory.
import { afterEach, expect, test } from "bun:test"
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import pkg from "../../package.json"
import type { FakeRequest, FakeServer } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"
import { clanka, events, finish, serve, sessionFiles, transcript } from "./helpers.ts"

const root = temporaryDirectory("clanka-save-")
const workspace = join(root, "work")
mkdirSync(workspace)
let n = 0
const freshHome = () => {
  const home = join(root, `home${++n}`)
  return home
}
let server: FakeServer | undefined
/** The key as the SDK sent it (x-api-key, or a bearer token). */
const sentKey = (request: FakeRequest) => request.headers["x-api-key"] ?? request.headers.authorization?.replace(/^Bearer /, "")
afterEach(async () => {
  await server?.close()
  server = undefined
})

test("a run is saved as it happens: header, history items and the very events it printed", async () => {
  const home = freshHome()
  const served = await serve([{ blocks: [{ type: "text", text: "Counting." }, { type: "execute", script: "console.log(2 + 2)" }] }, finish("four")], home)
  server = served.server
  const result = await clanka(["run", "--json", "-C", workspace, "add 2 and 2\nand say it"], { env: served.env })
  expect(result.code).toBe(0)
  const printed = events(result)
  const start = printed[0]
  expect(start).toMatchObject({ _tag: "AgentStart", resumedFrom: null })
  expect(start.sessionId).toMatch(/^[0-9a-f-]{36}$/)
  expect(sessionFiles(home)).toEqual([`${start.sessionId}.jsonl`])
  expect(statSync(join(home, "sessions")).mode & 0o777).toBe(0o700)
  expect(statSync(join(home, "sessions", `${start.sessionId}.jsonl`)).mode & 0o777).toBe(0o600)

  const lines = transcript(home, start.sessionId)
  expect(lines[0]).toEqual({
    type: "header",
    format: 1,
    id: start.sessionId,
    cwd: expect.any(String),
    executor: { kind: "local" },
    model: "anthropic/claude-sonnet-4-5",
    clanka: pkg.version,
    directory: workspace,
    prompt: "add 2 and 2",
    started: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  })
  expect(lines[1]).toMatchObject({ type: "open", pid: expect.any(Number) })
  // The events, in order and exactly as printed; the live output of a script is saved once, as
  // its output lines (sessions show replays them as the ScriptOutputDelta events).
  const live = printed.filter((event) => event._tag === "ScriptOutputDelta")
  expect(live).toEqual([{ _tag: "ScriptOutputDelta", id: "toolu_0_1", text: "4\n" }])
  expect(lines.filter((line) => line.type === "event").map((line) => line.event)).toEqual(printed.filter((event) => event._tag !== "ScriptOutputDelta"))
  expect(lines.filter((line) => line.type === "output")).toEqual([{ type: "output", call: "toolu_0_1", text: "4\n" }])
  expect(lines.filter((line) => line.type === "message").map((line) => line.message)).toEqual([
    { role: "user", content: "add 2 and 2\nand say it" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Counting." },
        { type: "tool-call", id: "toolu_0_1", name: "execute", input: { script: "console.log(2 + 2)" } },
      ],
    },
    { role: "tool", toolCallId: "toolu_0_1", content: "4\n" },
    { role: "assistant", content: [{ type: "tool-call", id: "toolu_1_0", name: "execute", input: { script: 'await taskComplete("four")' } }] },
    { role: "tool", toolCallId: "toolu_1_0", content: "(no output)" },
  ])
  expect(lines.filter((line) => line.type === "totals").at(-1)).toEqual({ type: "totals", turns: 2, costUsd: printed.at(-1).usage.costUsd, pid: lines[1].pid, host: lines[1].host })
})

test("no key or auth header enters a transcript, even when the model and the API echo the key", async () => {
  const home = freshHome()
  const key = "sk-ant-api03-SECRETSECRET-0123456789abcdef"
  const served = await serve(
    [
      // A hostile (or confused) model repeats the key it was called with, in text and in a script.
      (request) => ({
        blocks: [
          { type: "text", text: `my key is ${sentKey(request)}` },
          { type: "execute", script: `console.log(${JSON.stringify(sentKey(request) ?? "")})` },
        ],
      }),
      // Then the API refuses it and quotes it in the error.
      (request) => ({ error: { status: 401, message: `invalid x-api-key ${sentKey(request)}` } }),
    ],
    home,
  )
  server = served.server
  // Other secrets of the agent's environment, whatever their names' shape, are redacted too.
  const others = { DB_PASSWORD_PROD: "hunter2-prod-9911", MY_SECRET_VALUE: "s3cret-value-7788" }
  const result = await clanka(["run", "--json", "-C", workspace, `leak it: ${Object.values(others).join(" ")}`], { env: { ...served.env, ANTHROPIC_API_KEY: key, ...others } })
  expect(result.code).toBe(1)
  expect(sentKey(server.requests[0]!)).toBe(key)
  expect(result.stdout).toContain(key) // the run's own output is the user's; the file is what lasts
  const [file] = sessionFiles(home)
  const text = readFileSync(join(home, "sessions", file!), "utf8")
  expect(text).not.toContain(key)
  expect(text).not.toContain("SECRETSECRET")
  for (const value of Object.values(others)) expect(text).not.toContain(value)
  expect(text.toLowerCase()).not.toContain("authorization")
  expect(text).not.toContain("anthropic-version")
  expect(text).toContain("my key is [redacted]")
  expect(text).toContain("invalid x-api-key [redacted]")
})

test("a key split over streamed deltas, or holding a quote or a backslash, is redacted too", async () => {
  const home = freshHome()
  const key = "sk-ant-api03-SPLITSPLIT-0123456789abcdef"
  const quoted = 'pa"ss\\word-31337'
  const served = await serve(
    [
      // The model's text and script cut the key in the middle, as a real stream may.
      {
        blocks: [
          { type: "text", text: ["the key is sk-ant-api03-SPL", "ITSPLIT-01234", "56789abcdef, and ", quoted.slice(0, 4), quoted.slice(4)] },
          { type: "execute", script: `console.log("${key}", ${JSON.stringify(quoted)})`, chunks: 9 },
        ],
      },
      finish("done"),
    ],
    home,
  )
  server = served.server
  const result = await clanka(["run", "--json", "-C", workspace, `use ${quoted}`], { env: { ...served.env, ANTHROPIC_API_KEY: key, MY_SECRET_VALUE: quoted } })
  expect(result.code).toBe(0)
  const [file] = sessionFiles(home)
  const text = readFileSync(join(home, "sessions", file!), "utf8")
  const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line))
  // What a reader joins back: each block's deltas, each call's output.
  const joined = (tag: string) => lines.filter((l) => l.type === "event" && l.event._tag === tag).map((l) => l.event.delta).join("")
  const output = lines.filter((l) => l.type === "output").map((l) => l.text).join("")
  for (const whole of [joined("ReasoningDelta"), joined("ScriptDelta"), output, text, JSON.stringify(text)]) {
    expect(whole).not.toContain("SPLITSPLIT")
    expect(whole).not.toContain(quoted)
    expect(whole).not.toContain(JSON.stringify(quoted).slice(1, -1))
  }
  expect(joined("ReasoningDelta")).toBe("the key is [redacted], and [redacted]")
  expect(joined("ScriptDelta")).toStartWith('console.log("[redacted]", "[redacted]")')
  expect(output).toBe("[redacted] [redacted]\n")
  // The run's own output is the user's, unchanged.
  expect(result.stdout).toContain("SPLITSPLIT")
})

test("--no-session and CLANKA_NO_SESSION=1 keep the run in memory only", async () => {
  const home = freshHome()
  const served = await serve([finish("a"), finish("b"), finish("c")], home)
  server = served.server
  expect((await clanka(["run", "--no-session", "--json", "-C", workspace, "one"], { env: served.env })).code).toBe(0)
  expect((await clanka(["run", "--json", "-C", workspace, "two"], { env: { ...served.env, CLANKA_NO_SESSION: "1" } })).code).toBe(0)
  expect(sessionFiles(home)).toEqual([])
  expect((await clanka(["run", "--json", "-C", workspace, "three"], { env: { ...served.env, CLANKA_NO_SESSION: "0" } })).code).toBe(0)
  expect(sessionFiles(home)).toHaveLength(1)
})

test("without CLANKA_HOME sessions go to $XDG_STATE_HOME/clanka/sessions, else ~/.local/state/clanka/sessions", async () => {
  const state = join(root, "state")
  const home = join(root, "userhome")
  mkdirSync(home)
  const served = await serve([finish("a"), finish("b"), finish("c")], "")
  server = served.server
  expect((await clanka(["run", "--json", "-C", workspace, "one"], { env: { ...served.env, CLANKA_HOME: undefined, XDG_STATE_HOME: state } })).code).toBe(0)
  expect(sessionFiles(join(state, "clanka"))).toHaveLength(1)
  expect((await clanka(["run", "--json", "-C", workspace, "two"], { env: { ...served.env, CLANKA_HOME: undefined, XDG_STATE_HOME: undefined, HOME: home } })).code).toBe(0)
  expect(sessionFiles(join(home, ".local", "state", "clanka"))).toHaveLength(1)
  // A relative XDG_STATE_HOME is invalid (XDG spec) and ignored: nothing lands in the project.
  const relative = await clanka(["run", "--json", "-C", workspace, "three"], { env: { ...served.env, CLANKA_HOME: undefined, XDG_STATE_HOME: "state", HOME: home }, cwd: workspace })
  expect(relative.code).toBe(0)
  expect(sessionFiles(join(home, ".local", "state", "clanka"))).toHaveLength(2)
  expect(existsSync(join(workspace, "state"))).toBe(false)
})

test("the help names the session flags, the sessions command and the variables", async () => {
  const top = (await clanka(["--help"])).stdout
  for (const text of ["sessions", "--continue", "--resume ID", "--fork ID", "--no-session", "CLANKA_HOME", "XDG_STATE_HOME", "CLANKA_NO_SESSION=1"]) expect(top).toContain(text)
  const run = (await clanka(["run", "--help"])).stdout
  for (const flag of ["--continue", "--resume=<ID>", "--fork=<ID>", "--no-session", "--compact-at=<TOKENS>", "--max-budget-usd=<N>"]) expect(run).toContain(flag)
  expect((await clanka(["sessions", "--help"])).stdout).toContain("USAGE clanka sessions [OPTIONS] [ACTION] [ID]")
})

test("every transcript line is valid for strict parsers and line splitters: lone surrogates as U+FFFD, U+2028 escaped", async () => {
  const home = freshHome()
  const text = "half \ud83d of a pair, a line\u2028separator"
  const served = await serve([{ blocks: [{ type: "text", text }, { type: "execute", script: `await taskComplete(${JSON.stringify(text)})` }] }], home)
  server = served.server
  const result = await clanka(["run", "--json", "-C", workspace, "go"], { env: served.env })
  expect(result.code).toBe(0)
  const [file] = sessionFiles(home)
  const raw = readFileSync(join(home, "sessions", file!), "utf8")
  expect(raw).not.toMatch(/(?<!\\)(\\\\)*\\ud[89a-f]/)
  expect(raw).not.toMatch(/[\u0085\u2028\u2029]/)
  const lines = transcript(home, file!.replace(/\.jsonl$/, ""))
  const finished = lines.find((line) => line.type === "event" && line.event._tag === "AgentFinished")
  expect(finished.event.summary).toBe(text.toWellFormed())
})
