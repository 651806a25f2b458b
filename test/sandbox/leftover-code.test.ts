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

// What the engine resolves or calls after the script's end (not through the bridge, which drops
// timers, tool calls and fetch) must not run inside a later script: its error would be blamed on
// that script, and its hooks would meet that script's objects.
const LATER_SCRIPT = `const t = Date.now(); while (Date.now() - t < 600) await new Promise((r) => setTimeout(r, 10)); console.log(await echo("mine"))`
const LEFT_BEHIND = {
  "Atomics.waitAsync": `Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200).value`,
  // Compiles one after another for 200 ms (the script's own timers are dropped when it ends).
  "WebAssembly.compile": `(() => { const until = Date.now() + 200; const again = () => WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])).then(() => (Date.now() < until ? again() : undefined)); return again() })()`,
}
for (const [name, promise] of Object.entries(LEFT_BEHIND)) {
  test(`a callback of ${name} left behind does not run inside the next script`, async () => {
    // A script that touches the next script's globals from the hook of its own rejection.
    const hook = `{ [Symbol.for("nodejs.util.inspect.custom")](depth, options, inspect) { inspect.constructor("return globalThis")().echo = async () => "hijacked"; return "left" } }`
    await run(`${promise}.then(() => { throw ${hook} }); console.log("left")`)
    expect(await run(LATER_SCRIPT)).toBe('echo:"mine"\n')
  })
}
