// Item 5 of sessions: --max-budget-usd stops the run after the script in flight once the cost so
// far (sub-agents included) reaches the budget; a model without a price cannot have one.
import { afterEach, expect, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { fromSubagent, startFakeModel, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"
import { clanka, events, finish, serve } from "./helpers.ts"

const root = temporaryDirectory("clanka-budget-")
const workspace = join(root, "work")
mkdirSync(workspace)
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

// claude-sonnet-4-5: $3 per million input tokens, so each of these responses costs $0.30.
const expensive = (script: string): FakeTurn => ({ blocks: [{ type: "execute", script }], usage: { input: 100_000, output: 0 } })

test("the run stops after the script in flight once the budget is reached: exit 1, AgentError names both amounts", async () => {
  const served = await serve([expensive('console.log("one")'), expensive('console.log("two")'), expensive('console.log("three")')], join(root, "home1"))
  server = served.server
  const result = await clanka(["run", "--json", "--max-budget-usd", "0.5", "-C", workspace, "spend"], { env: served.env })
  expect(result.code).toBe(1)
  const printed = events(result)
  // The second response took the cost to $0.60: its script still ran, nothing after it did.
  expect(printed.filter((event) => event._tag === "ScriptOutput").map((event) => event.output)).toEqual(["one\n", "two\n"])
  expect(printed.at(-1)).toEqual({
    _tag: "AgentError",
    message: "stopped: the run has cost $0.6000, which reaches the budget of $0.5 (--max-budget-usd)",
    exitCode: 1,
  })
  expect(server.requests).toHaveLength(2)
  expect(result.stderr).toBe("clanka: stopped: the run has cost $0.6000, which reaches the budget of $0.5 (--max-budget-usd)\n")
})

test("sub-agents' spending counts while they run", async () => {
  const turn = (request: any): FakeTurn =>
    fromSubagent(request)
      ? expensive('console.log("sub working")')
      : request.toolResults.length === 0
        ? expensive('try { console.log(await delegate("dig")) } catch (e) { console.log("delegate failed:", e.message) }')
        : finish("should not get here")
  const served = await serve([turn, turn, turn, turn, turn], join(root, "home2"))
  server = served.server
  const result = await clanka(["run", "--json", "--max-budget-usd", "0.5", "-C", workspace, "delegate"], { env: served.env })
  expect(result.code).toBe(1)
  const printed = events(result)
  // Parent $0.30 + the sub-agent's first response $0.30: the sub-agent stops after its script,
  // the parent's delegate() fails, and the parent stops after that script.
  expect(server.requests.map((request) => (fromSubagent(request) ? "sub" : "parent"))).toEqual(["parent", "sub"])
  expect(printed.find((event) => event._tag === "SubagentComplete").summary).toStartWith("sub-agent failed: stopped: the run has cost $0.6000")
  expect(printed.at(-1)).toMatchObject({ _tag: "AgentError", exitCode: 1, message: expect.stringContaining("budget of $0.5") })
})

test("a model without a price cannot take a budget: exit 2 before any request", async () => {
  server = await startFakeModel("openai-compatible", [finish("x")])
  const env = { ...server.env, CLANKA_HOME: join(root, "home3") }
  const result = await clanka(["run", "-m", "openai-compatible/qwen3", "--max-budget-usd", "1", "-C", workspace, "hi"], { env })
  expect(result).toEqual({
    code: 2,
    stdout: "",
    stderr: "clanka: --max-budget-usd cannot be enforced: openai-compatible/qwen3 has no price in clanka's table (its cost is unknown); drop the flag or choose a priced model\n",
  })
  expect(server.requests).toHaveLength(0)
  const bad = await clanka(["run", "--max-budget-usd", "-1", "-C", workspace, "hi"], { env: { ...env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", ANTHROPIC_API_KEY: "k" } })
  expect(bad).toMatchObject({ code: 2, stderr: 'clanka: --max-budget-usd takes a positive amount in US dollars, got "-1"\n' })
  // Money as people write it: not hexadecimal or an exponent, which Number() would take.
  for (const odd of ["0x10", "1e3", "0", "."]) {
    const refused = await clanka(["run", "--max-budget-usd", odd, "-C", workspace, "hi"], { env: { ...env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", ANTHROPIC_API_KEY: "k" } })
    expect(refused).toMatchObject({ code: 2, stderr: `clanka: --max-budget-usd takes a positive amount in US dollars, got "${odd}"\n` })
  }
})

test("a provider reporting negative token counts cannot lower the run's cost under the budget", async () => {
  // $0.30 of input each, and a negative output count that would take $15 off if it were believed.
  const lying = (script: string): FakeTurn => ({ blocks: [{ type: "execute", script }], usage: { input: 100_000, output: -1_000_000 } })
  const served = await serve([lying('console.log("one")'), lying('console.log("two")'), lying('console.log("three")'), finish("done")], join(root, "home-negative"))
  server = served.server
  const result = await clanka(["run", "--json", "--max-budget-usd", "0.5", "-C", workspace, "spend"], { env: served.env })
  expect(result.code).toBe(1)
  const printed = events(result)
  expect(printed.filter((event) => event._tag === "ScriptOutput").map((event) => event.output)).toEqual(["one\n", "two\n"])
  expect(printed.filter((event) => event._tag === "Usage").map((event) => event.outputTokens)).toEqual([0, 0])
  expect(printed.at(-1)).toMatchObject({ _tag: "AgentError", exitCode: 1, message: expect.stringContaining("$0.6000, which reaches the budget of $0.5") })
  expect(server.requests).toHaveLength(2)
})

test("a compaction whose summary reaches the budget: the model turn it made room for does not start", async () => {
  // $0.021 for the second response (7,000 input tokens, past --compact-at), $0.48 for the summary.
  const turn = (request: any): FakeTurn => {
    if (request.body.tools === undefined) return { blocks: [{ type: "text", text: "Summary: printed one and two." }], usage: { input: 160_000, output: 0 } }
    const results = request.toolResults.length
    if (results === 0) return { blocks: [{ type: "execute", script: 'console.log("one")' }], usage: { input: 10, output: 0 } }
    if (results === 1) return { blocks: [{ type: "execute", script: 'console.log("two")' }], usage: { input: 7_000, output: 0 } }
    return finish("should not get here")
  }
  const served = await serve([turn, turn, turn, turn], join(root, "home-compaction"))
  server = served.server
  const result = await clanka(["run", "--json", "--max-budget-usd", "0.5", "--compact-at", "6000", "-C", workspace, "spend"], { env: served.env })
  const printed = events(result)
  expect(printed.filter((event) => event._tag === "Compaction")).toHaveLength(1)
  expect(server.requests).toHaveLength(3)
  expect(result.code).toBe(1)
  expect(printed.at(-1)).toMatchObject({ _tag: "AgentError", exitCode: 1, message: expect.stringContaining("which reaches the budget of $0.5") })
})
