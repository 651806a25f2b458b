// `clanka acp`: the official ACP SDK's client side, as an editor, drives clanka from source against
// the fake model servers: initialize, sessions in the editor's directory, prompts streamed as
// session updates, cancel, load, stop reasons, the editor's MCP servers, and errors that leave the
// agent serving.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { acp, startAcp, type AcpEditor } from "../support/acp-client.ts"
import { fakeProviders, startFakeModel, type FakeProvider, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { png } from "../support/images.ts"
import { everythingStdio } from "../support/mcp-everything.ts"
import { temporaryDirectory } from "../support/temp.ts"

// Each test starts clanka, its executor and a model server; a loaded machine is slow.
setDefaultTimeout(60_000)

const root = temporaryDirectory("clanka-acp-")
const home = join(root, "state")
const workspace = join(root, "project")
mkdirSync(workspace)
writeFileSync(join(workspace, "note.txt"), "hello note\n")

let server: FakeServer | undefined
let editor: AcpEditor | undefined
afterEach(async () => {
  await editor?.close()
  editor = undefined
  await server?.close()
  server = undefined
})

const INIT = { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } }

const MODEL: Record<FakeProvider, string> = { anthropic: "anthropic/claude-sonnet-4-5", openai: "openai/gpt-5", "openai-compatible": "openai-compatible/qwen3" }

async function start(turns: FakeTurn[], args: string[] = [], provider: FakeProvider = "anthropic"): Promise<AcpEditor> {
  server = await startFakeModel(provider, turns)
  editor = await startAcp(args, { env: { ...server.env, CLANKA_MODEL: MODEL[provider], CLANKA_HOME: home, XDG_CONFIG_HOME: join(root, "xdg") } })
  await editor.agent.request(acp.methods.agent.initialize, INIT)
  return editor
}

async function newSession(mcpServers: acp.McpServer[] = []): Promise<string> {
  return (await editor!.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers })).sessionId
}

function prompt(sessionId: string, text: string): Promise<acp.PromptResponse> {
  return editor!.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] })
}

const text = (value: string): acp.ContentBlock => ({ type: "text", text: value })
const output = (value: string): acp.ToolCallContent[] => [{ type: "content", content: text(value) }]
/** A usage_update with the fake's default token counts, and the session's cost so far. */
const usage = (amount: number) => ({ sessionUpdate: "usage_update", used: 15, size: 200_000, cost: { amount, currency: "USD" } })

const READ_NOTE = '// read the note\nconsole.log(await readFile({ path: "note.txt" }))'
const FIRST_PROMPT: FakeTurn[] = [
  { blocks: [{ type: "reasoning", text: "Let me look." }, { type: "text", text: "Reading." }, { type: "execute", script: READ_NOTE }] },
  { blocks: [{ type: "text", text: "It says hello." }] },
]
/** The updates of FIRST_PROMPT, as a replay shows them: without the output printed as the script ran. */
const FIRST_UPDATES = [
  { sessionUpdate: "agent_thought_chunk", content: text("Let me look.") },
  { sessionUpdate: "agent_message_chunk", content: text("Reading.") },
  { sessionUpdate: "tool_call", toolCallId: "script-1", title: "read the note", kind: "execute", status: "in_progress", rawInput: { script: READ_NOTE } },
  usage(0.000105),
  { sessionUpdate: "tool_call_update", toolCallId: "script-1", status: "completed", content: output("hello note\n\n") },
  { sessionUpdate: "agent_message_chunk", content: text("It says hello.") },
  usage(0.00021),
]
/** Live, the output also shows while the script runs (all of it so far: ACP replaces a tool call's content). */
const FIRST_LIVE_UPDATES = [...FIRST_UPDATES.slice(0, 4), { sessionUpdate: "tool_call_update", toolCallId: "script-1", content: output("hello note\n\n") }, ...FIRST_UPDATES.slice(4)]

test("initialize: ACP v1, sessions can be loaded, images and embedded context in prompts, HTTP MCP servers", async () => {
  server = await startFakeModel("anthropic", [])
  editor = await startAcp([], { env: { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: home } })
  expect(await editor.agent.request(acp.methods.agent.initialize, INIT)).toEqual({
    protocolVersion: 1,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { close: {} },
    },
    agentInfo: { name: "clanka", title: "clanka", version: expect.any(String) },
    authMethods: [],
  })
})

test("a prompt streams the thinking, the answer, each script as a tool call with its output, and usage; the session is saved", async () => {
  await start(FIRST_PROMPT)
  const sessionId = await newSession()
  expect(await prompt(sessionId, "what does the note say?")).toEqual({ stopReason: "end_turn" })
  expect(editor!.updates(sessionId)).toEqual(FIRST_LIVE_UPDATES as acp.SessionUpdate[])
  // The script ran in the editor's cwd, and the model got its output.
  expect(server!.requests[1]!.toolResults).toEqual(["hello note\n\n"])
  // Saved as `run` saves a session: its transcript is named by the session id.
  const transcript = readFileSync(join(home, "sessions", `${sessionId}.jsonl`), "utf8").split("\n")
  expect(JSON.parse(transcript[0]!)).toMatchObject({ type: "header", id: sessionId, directory: workspace, model: "anthropic/claude-sonnet-4-5", prompt: "what does the note say?" })
  expect(await editor!.close()).toBe(0)
  editor = undefined
})

test("the todo list becomes the plan; a script that throws fails its tool call; a taskComplete summary is the answer", async () => {
  await start([
    { blocks: [{ type: "execute", script: 'await addTodo("write tests"); await addTodo("ship")' }] },
    { blocks: [{ type: "execute", script: 'throw new Error("boom")' }] },
    { blocks: [{ type: "execute", script: 'await taskComplete("All done.")' }] },
  ])
  const sessionId = await newSession()
  expect(await prompt(sessionId, "plan it")).toEqual({ stopReason: "end_turn" })
  const updates: unknown[] = editor!.updates(sessionId).filter((update) => update.sessionUpdate !== "usage_update")
  expect(updates).toEqual([
    { sessionUpdate: "tool_call", toolCallId: "script-1", title: 'await addTodo("write tests"); await addTodo("ship")', kind: "execute", status: "in_progress", rawInput: { script: 'await addTodo("write tests"); await addTodo("ship")' } },
    { sessionUpdate: "tool_call_update", toolCallId: "script-1", status: "completed", content: output("(no output)") },
    {
      sessionUpdate: "plan",
      entries: [
        { content: "write tests", priority: "medium", status: "pending" },
        { content: "ship", priority: "medium", status: "pending" },
      ],
    },
    { sessionUpdate: "tool_call", toolCallId: "script-2", title: 'throw new Error("boom")', kind: "execute", status: "in_progress", rawInput: { script: 'throw new Error("boom")' } },
    { sessionUpdate: "tool_call_update", toolCallId: "script-2", content: output('Error: boom (line 1)\n  1 | throw new Error("boom")\n') },
    { sessionUpdate: "tool_call_update", toolCallId: "script-2", status: "failed", content: output('Error: boom (line 1)\n  1 | throw new Error("boom")\nThe script failed: Error: boom (line 1)') },
    { sessionUpdate: "tool_call", toolCallId: "script-3", title: 'await taskComplete("All done.")', kind: "execute", status: "in_progress", rawInput: { script: 'await taskComplete("All done.")' } },
    { sessionUpdate: "tool_call_update", toolCallId: "script-3", status: "completed", content: output("(no output)") },
    { sessionUpdate: "agent_message_chunk", content: text("All done.") },
  ])
})

test("session/cancel stops the running script: the prompt ends cancelled, its tool call failed, and the session goes on", async () => {
  await start([
    { blocks: [{ type: "execute", script: 'console.log("started"); await bash({ command: "sleep 30" })' }] },
    { blocks: [{ type: "text", text: "Still here." }] },
  ])
  const sessionId = await newSession()
  const started = performance.now()
  const running = prompt(sessionId, "wait a while")
  // The tool call, the usage, then "started" as the script prints it: it runs.
  const seen = await editor!.waitForUpdates(sessionId, 3)
  expect(seen[2]).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "script-1", content: output("started\n") })
  await editor!.agent.notify(acp.methods.agent.session.cancel, { sessionId })
  expect(await running).toEqual({ stopReason: "cancelled" })
  expect(performance.now() - started).toBeLessThan(15_000)
  const call = editor!.updates(sessionId).findLast((update) => update.sessionUpdate === "tool_call_update")
  expect(call).toMatchObject({ toolCallId: "script-1", status: "failed" })
  expect(JSON.stringify(call)).toContain("[interrupted by the user]")
  // The conversation goes on, and the model is told the script was stopped.
  expect(await prompt(sessionId, "are you there?")).toEqual({ stopReason: "end_turn" })
  expect(editor!.updates(sessionId).at(-2)).toEqual({ sessionUpdate: "agent_message_chunk", content: text("Still here.") })
  expect(server!.requests[1]!.lastUserText).toBe("are you there?")
})

test("session/load replays a saved session as updates, then goes on from its history", async () => {
  await start([...FIRST_PROMPT, (request) => ({ blocks: [{ type: "text", text: `I remember ${request.body.messages.length} messages.` }] })])
  const sessionId = await newSession()
  await prompt(sessionId, "what does the note say?")
  await editor!.close()
  // Another editor process, as after a restart.
  editor = await startAcp([], { env: { ...server!.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: home, XDG_CONFIG_HOME: join(root, "xdg") } })
  await editor.agent.request(acp.methods.agent.initialize, INIT)
  expect(await editor.agent.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] })).toEqual({})
  expect(editor.updates(sessionId)).toEqual([{ sessionUpdate: "user_message_chunk", content: text("what does the note say?") }, ...FIRST_UPDATES] as acp.SessionUpdate[])
  expect(await prompt(sessionId, "and now?")).toEqual({ stopReason: "end_turn" })
  // The history came back: prompt, answer with the call, its result, the answer, the new prompt.
  expect(editor.updates(sessionId).at(-2)).toEqual({ sessionUpdate: "agent_message_chunk", content: text("I remember 5 messages.") })
  // The new tool call ids go on after the replayed ones; the session's cost too.
  expect(editor.updates(sessionId).at(-1)).toEqual(usage(0.000315) as acp.SessionUpdate)
  const starts = readFileSync(join(home, "sessions", `${sessionId}.jsonl`), "utf8").split("\n").filter((line) => line.includes('"_tag":"AgentStart"'))
  expect(starts).toHaveLength(2)
})

for (const provider of fakeProviders) {
  test(`stop reasons against ${provider}: the output limit is max_tokens, a refusal is refusal, --max-turns is max_turn_requests`, async () => {
    await start(
      [
        { blocks: [{ type: "text", text: "This answer is cut" }], stop: "length" },
        { blocks: [{ type: "text", text: "I can't help with that." }], stop: "refusal" },
        { blocks: [{ type: "execute", script: "console.log(1)" }] },
      ],
      ["--max-turns", "1"],
      provider,
    )
    const sessionId = await newSession()
    expect(await prompt(sessionId, "write a lot")).toEqual({ stopReason: "max_tokens" })
    expect(await prompt(sessionId, "something bad")).toEqual({ stopReason: "refusal" })
    expect(await prompt(sessionId, "work long")).toEqual({ stopReason: "max_turn_requests" })
  })
}

test("errors are answered with one line and the agent keeps serving: an unknown session, bad params, a failing model", async () => {
  await start([{ error: { status: 401, message: "invalid x-api-key" } }, { blocks: [{ type: "text", text: "Back." }] }])
  const refused = async (request: Promise<unknown>) => {
    try {
      await request
    } catch (error) {
      return error as acp.RequestError
    }
    throw new Error("the request succeeded")
  }
  expect(await refused(prompt("no-such-session", "hi"))).toMatchObject({ code: -32002, data: { sessionId: "no-such-session" } })
  expect(await refused(editor!.agent.request(acp.methods.agent.session.new, { cwd: "relative/dir", mcpServers: [] }))).toMatchObject({ code: -32602, message: 'Invalid params: cwd must be an absolute path, got "relative/dir"' })
  expect(await refused(editor!.agent.request(acp.methods.agent.session.new, { cwd: join(root, "missing"), mcpServers: [] }))).toMatchObject({ code: -32603, message: `-C ${join(root, "missing")}: no such directory`, data: { exitCode: 2 } })
  expect(await refused(editor!.agent.request("session/new" as never, { mcpServers: [] } as never))).toMatchObject({ code: -32602 })
  const sessionId = await newSession()
  const failed = await refused(prompt(sessionId, "hi"))
  expect(failed.code).toBe(-32603)
  expect(failed.message).toContain("invalid x-api-key")
  expect(failed.message).not.toContain("\n")
  expect(await prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" })
  expect(editor!.updates(sessionId)).toContainEqual({ sessionUpdate: "agent_message_chunk", content: text("Back.") })
})

test("the editor's MCP servers join the session: a stdio server's tools are in the scripts' mcp", async () => {
  await start([
    { blocks: [{ type: "execute", script: `const r = await mcp.weather_now.get_structured_content({ location: "Chicago" }); console.log(r.conditions)` }] },
    { blocks: [{ type: "text", text: "Rainy." }] },
  ])
  const sessionId = await newSession([{ name: "weather now", command: everythingStdio.command, args: everythingStdio.args, env: [] }])
  expect(await prompt(sessionId, "weather?")).toEqual({ stopReason: "end_turn" })
  expect(editor!.updates(sessionId)).toContainEqual({ sessionUpdate: "tool_call_update", toolCallId: "script-1", status: "completed", content: output("Light rain / drizzle\n") })
  expect(server!.requests[0]!.system).toContain("weather_now")
})

test("a prompt's embedded file and resource link reach the model as context", async () => {
  await start([{ blocks: [{ type: "text", text: "Seen." }] }])
  const sessionId = await newSession()
  const file = join(workspace, "note.txt")
  await editor!.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [
      text("explain "),
      { type: "resource", resource: { uri: `file://${file}`, text: "hello note\n", mimeType: "text/plain" } },
      text(" and "),
      { type: "resource_link", uri: `file://${join(workspace, "other.ts")}`, name: "other.ts" },
    ],
  })
  expect(server!.requests[0]!.lastUserText).toBe(`explain ${file} and ${join(workspace, "other.ts")}\n\n<resource uri="file://${file}">\nhello note\n</resource>`)
  expect(existsSync(join(home, "sessions", `${sessionId}.jsonl`))).toBe(true)
})

test("a prompt's image reaches the model; one the model cannot take is refused with the reason", async () => {
  await start([{ blocks: [{ type: "text", text: "A grey square." }] }])
  const sessionId = await newSession()
  const image = png(4, 4).toString("base64")
  expect(await editor!.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("what is this?"), { type: "image", data: image, mimeType: "image/png" }] })).toEqual({ stopReason: "end_turn" })
  expect(server!.requests[0]!.images).toEqual([{ in: "user", mediaType: "image/png", data: image }])
  const notImage = Buffer.from("not an image").toString("base64")
  await expect(editor!.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("and this?"), { type: "image", data: notImage, mimeType: "image/png" }] })).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining("image 2"),
  })
  expect(server!.requests).toHaveLength(1)
})

test("attack: a session in an untrusted repository runs none of its hooks; a crafted session id or a FIFO as cwd is one error", async () => {
  const repo = join(root, "hostile")
  const marker = join(root, "hook-ran")
  mkdirSync(join(repo, ".git"), { recursive: true })
  writeFileSync(join(repo, "clanka.json"), JSON.stringify({ hooks: { sessionStart: [`touch ${marker}`], preExecute: [`touch ${marker}`], stop: [`touch ${marker}`] } }))
  await start([{ blocks: [{ type: "execute", script: "console.log(1)" }] }, { blocks: [{ type: "text", text: "Done." }] }])
  const sessionId = (await editor!.agent.request(acp.methods.agent.session.new, { cwd: repo, mcpServers: [] })).sessionId
  expect(await prompt(sessionId, "go")).toEqual({ stopReason: "end_turn" })
  expect(existsSync(marker)).toBe(false)
  const refused = (request: Promise<unknown>) => request.then(() => undefined, (error: acp.RequestError) => error.message)
  expect(await refused(editor!.agent.request(acp.methods.agent.session.load, { sessionId: "../../../etc/passwd", cwd: workspace, mcpServers: [] }))).toBe('"../../../etc/passwd" is not a session id (see clanka sessions)')
  const fifo = join(root, "fifo")
  Bun.spawnSync(["mkfifo", fifo])
  expect(await refused(editor!.agent.request(acp.methods.agent.session.new, { cwd: fifo, mcpServers: [] }))).toBe(`-C ${fifo}: not a directory`)
})
