// A sandbox worker makes the next script's realm while it waits. That realm must be as fresh as
// one made for the script: nothing of an earlier script's realm, and the tools the script is
// given, also when they changed after the realm was made.
import { afterAll, expect, test } from "bun:test"
import { Sandbox } from "../../src/sandbox/sandbox.ts"

const sandbox = new Sandbox(["echo"], [])
afterAll(() => sandbox.close())

async function run(script: string): Promise<string> {
  let output = ""
  const handle = sandbox.run({
    script,
    timeoutMs: 10_000,
    onOutput: (text) => (output += text),
    onCall: async (tool, params) => `${tool}:${JSON.stringify(params)}`,
  })
  const result = await handle.result
  return result.ok ? output : `${output}[failed] ${result.error}`
}

const pollute = `globalThis.leftover = 1; Object.prototype.polluted = 1; Array.prototype.push = () => "hijacked"; console.log = () => {}; globalThis.echo = () => "hijacked"`
const look = `const a = []; a.push(1); print(typeof leftover, ({}).polluted, a.length, await echo("x"))`.replace("print", "console.log")

test("a script after one that changed its realm's globals: the realm made meanwhile is untouched", async () => {
  sandbox.warm()
  expect(await run(pollute)).toBe("")
  // Time for the worker to make the next realm before the next script arrives.
  await Bun.sleep(50)
  expect(await run(look)).toBe('undefined undefined 1 echo:"x"\n')
  // And straight after, before the worker had a moment: a realm of its own.
  expect(await run(pollute)).toBe("")
  expect(await run(look)).toBe('undefined undefined 1 echo:"x"\n')
})

test("tools added after the worker made its next realm reach the next script", async () => {
  sandbox.warm()
  await Bun.sleep(50)
  sandbox.setToolNames(["echo", "later"], [])
  expect(await run(`console.log(typeof later, await later(2))`)).toBe("function later:2\n")
  sandbox.setToolNames(["echo"], [])
  expect(await run(`console.log(typeof later)`)).toBe("undefined\n")
})
