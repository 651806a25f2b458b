// A script's code can outlive the script in its worker: a loop of awaits it did not wait for, or a
// callback the engine calls later. The next script must still run at once, not hang until its
// own time limit (10 minutes by default) on a worker that code keeps busy.
import { afterAll, expect, test } from "bun:test"
import { Sandbox } from "../../src/sandbox/sandbox.ts"

const sandbox = new Sandbox(["echo"], [])
afterAll(() => sandbox.close())

async function run(script: string, timeoutMs = 8_000): Promise<string> {
  let output = ""
  const handle = sandbox.run({
    script,
    timeoutMs,
    onOutput: (text) => (output += text),
    onCall: async (tool, params) => `${tool}:${JSON.stringify(params)}`,
  })
  const result = await handle.result
  return result.ok ? output : `${output}[failed] ${result.error}`
}

test("a loop of awaits a script did not wait for is the script's own loop: stopped at its time limit, and the next script runs", async () => {
  expect(await run(`(async () => { for (;;) await null })(); console.log("left a loop")`, 1_000)).toBe(
    "left a loop\n\n[script timed out after 1 s and was stopped]\n[failed] script timed out after 1 s and was stopped",
  )
  const started = Date.now()
  expect(await run(`console.log(await echo("next"))`)).toBe('echo:"next"\n')
  expect(Date.now() - started).toBeLessThan(4000)
})

test("a callback the engine calls after the script ended, blocking its worker, does not hold up the next script", async () => {
  const left = `const view = new Int32Array(new SharedArrayBuffer(4)); Atomics.waitAsync(view, 0, 0, 100).value.then(() => { for (;;) {} }); console.log("left a callback")`
  expect(await run(left)).toBe("left a callback\n")
  await Bun.sleep(400)
  const started = Date.now()
  expect(await run(`console.log("next")`)).toBe("next\n")
  expect(Date.now() - started).toBeLessThan(4000)
})

test("scripts that leave nothing running reuse their worker at once", async () => {
  for (let i = 0; i < 5; i++) {
    const started = Date.now()
    expect(await run(`console.log(${i})`)).toBe(`${i}\n`)
    expect(Date.now() - started).toBeLessThan(500)
  }
})
