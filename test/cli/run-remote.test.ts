import { afterEach, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, clanka, MAIN } from "../support/cli.ts"
import { fromSubagent, startFakeModel, type FakeRequest, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

const directory = temporaryDirectory("clanka-remote-")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** The parent delegates; the sub-agent writes a file on the executor's side and reports. */
function dispatch(request: FakeRequest): FakeTurn {
  const sub = fromSubagent(request)
  const done = request.toolResults.length > 0
  if (sub && !done) return { blocks: [{ type: "execute", script: 'await writeFile({ path: "from-sub.txt", content: "sub was here" })\nawait taskComplete("wrote from-sub.txt")' }] }
  if (!done) return { blocks: [{ type: "execute", script: 'console.log("sub said: " + await delegate("write from-sub.txt"))' }] }
  return { blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(request.toolResults[0]!.trim())})` }] }
}

test("clanka run --executor: a sub-agent's delegate() crosses the protocol and back", async () => {
  server = await startFakeModel("anthropic", Array.from({ length: 4 }, () => dispatch))
  const executor = `${BUN} ${MAIN} executor -C ${directory}`
  const result = await clanka(["run", "--json", "-m", "anthropic/claude-sonnet-4-5", "--executor", executor, "delegate it"], {
    env: server.env,
  })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(events[0]).toMatchObject({ _tag: "AgentStart", directory })
  const start = events.find((event) => event._tag === "SubagentStart")
  expect(start).toMatchObject({ prompt: "write from-sub.txt", provider: "anthropic", model: "claude-sonnet-4-5" })
  expect(events.find((event) => event._tag === "SubagentComplete")).toEqual({ _tag: "SubagentComplete", id: start.id, summary: "wrote from-sub.txt" })
  expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "sub said: wrote from-sub.txt" })
  expect(readFileSync(join(directory, "from-sub.txt"), "utf8")).toBe("sub was here")
})

test("an executor that cannot start ends with exit 3 and one line", async () => {
  server = await startFakeModel("anthropic", [])
  const result = await clanka(["run", "-m", "anthropic/claude-sonnet-4-5", "--executor", "exit 7", "hi"], { env: server.env })
  expect(result).toEqual({
    code: 3,
    stdout: "",
    stderr: "clanka: the executor command (exit 7) exited (exit code 7) before answering; check that it runs `clanka executor`\n",
  })
})

test("an executor that dies with a message: exit 3, one line carrying its stderr", async () => {
  server = await startFakeModel("anthropic", [])
  const result = await clanka(["run", "-m", "anthropic/claude-sonnet-4-5", "--executor", "echo 'no such host' >&2; exit 255", "hi"], {
    env: server.env,
  })
  expect(result).toEqual({
    code: 3,
    stdout: "",
    stderr:
      "clanka: the executor command (echo 'no such host' >&2; exit 255) exited (exit code 255) before answering: no such host; check that it runs `clanka executor`\n",
  })
  expect(server.requests.length).toBe(0)
})
