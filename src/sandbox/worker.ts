// Runs scripts, one at a time, each in a fresh vm context. Everything a script can reach is made
// inside that context's realm (realm/*.realm.js): the tools, console, timers and web APIs. The
// realm reaches this thread only through the bridge functions below, which take and return
// strings, numbers and booleans, so no object of this thread — and with it `process`, `Bun` or
// this realm's Function — is ever reachable from a script. Tool calls cross to the main thread as
// messages. A runaway script is stopped by the main thread terminating this worker.
import vm from "node:vm"
import { FILENAME, type Report, runtimeErrorReport, syntaxErrorReport, thrownValueReport, wrap, type Source } from "./error-report.ts"
import { prepareScript } from "./repair.ts"
import { prepareRealm, type PreparedRealm, type Realm } from "./realm-host.ts"
import type { ToMain, Tools, ToWorker } from "./messages.ts"

declare const self: { onmessage: ((event: MessageEvent<ToWorker>) => void) | null; postMessage(message: ToMain): void }

// Flow control: `sent` counts output characters posted; the main thread adds what it has taken
// to `acked`. Both wrap modulo 2^32, so their difference is taken as an int32.
let acked: Int32Array<ArrayBufferLike> = new Int32Array(1)
let outputWindow = Infinity
let sent = 0

/** Tool calls waiting for the main thread, each with the realm that made it. */
const pending = new Map<number, { realm: Realm; id: number }>()
let nextCallId = 1

/** The script running now, if any: errors that escape it are reported against it. */
let current: { runId: number; script: string; source: Source; settled: boolean; realm?: Realm; end(): void } | undefined

/** The next script's realm, made while this worker waits (the first one costs ~2 ms), for the tools last asked for. */
let prepared: PreparedRealm | undefined
let tools: Tools

self.onmessage = (event) => {
  const message = event.data
  if (message.type === "init") {
    acked = message.acked
    outputWindow = message.window
    tools = message.tools
    prepared = prepareRealm(tools.toolNames, tools.spread)
  } else if (message.type === "run") run(message)
  else if (message.type === "result") {
    const call = pending.get(message.callId)
    if (!call) return
    pending.delete(message.callId)
    call.realm.settle(call.id, message.ok, message.ok ? message.value : message.error)
  }
}

// A rejection nobody handles ends the script, as it would end a Node program; the worker is not
// reused, since the script's other code may still be running. The reason is the script's own
// value: the realm describes it, this thread never reads it.
const uncaught = (prefix: string) => (reason: unknown) => {
  if (current && !current.settled && current.realm) current.realm.uncaught(prefix, reason)
}
process.on("unhandledRejection", uncaught("Uncaught (in promise) "))
process.on("uncaughtException", uncaught("Uncaught "))

// Nothing in this thread may write to the process's stdout, which may carry the protocol:
// whatever reaches this thread's console becomes the script's output instead. (Bun's console
// writes to the file descriptor itself, not through process.stdout; process.stdout and stderr
// are left unmade, which in a worker costs 10 to 20 ms of every first script.)
for (const name of ["log", "info", "warn", "error", "debug", "trace", "dir", "table"] as const) {
  console[name] = (...values: unknown[]) => {
    if (current && !current.settled) postOutput(current.runId, `${values.map((value) => (typeof value === "string" ? value : String(value))).join(" ")}\n`)
  }
}

function post(message: ToMain): void {
  self.postMessage(message)
}

/** Posts console output, first waiting while too much of it is still untaken. */
function postOutput(runId: number, text: string): void {
  for (;;) {
    const seen = Atomics.load(acked, 0)
    if (((sent - seen) | 0) <= outputWindow) break
    Atomics.wait(acked, 0, seen, 100)
  }
  sent = (sent + text.length) | 0
  post({ type: "output", runId, text })
}

/** Compiles the script as the body of an async function; the wrapper adds no line. */
function compile(script: string, realm: Realm): vm.Script {
  return new vm.Script(wrap(script), {
    filename: FILENAME,
    // `import()` anywhere in the script (also in code it makes with Function or eval) rejects
    // with an error of the script's realm, instead of one of this thread's.
    importModuleDynamically: ((specifier: unknown) => {
      throw realm.importError(typeof specifier === "string" ? specifier : "")
    }) as never,
  })
}

function run({ runId, script: original, toolNames, spread }: Extract<ToWorker, { type: "run" }>): void {
  // A run the main thread gave up waiting for (it has a fresh worker run it) is not run here.
  if (Atomics.compareExchange(acked, 1, 0, 1) !== 0) return
  // Strips a wrapping code fence and repairs templates only when the script needs it.
  const { script, firstLine } = prepareScript(original)
  const source: Source = { original, firstLine }
  const state: NonNullable<typeof current> = { runId, script, source, settled: false, end: () => {} }
  const finish = (message: ToMain) => {
    if (state.settled) return
    state.settled = true
    state.end()
    if (current === state) current = undefined
    post(message)
    // The next script's realm, once this turn of the event loop is over (a next script that is
    // already waiting makes its own).
    // Then the worker says it is idle: a script that left code running (a loop of awaits) keeps
    // it from saying so, and the main thread ends it.
    setTimeout(() => {
      prepared ??= current ? undefined : prepareRealm(tools.toolNames, tools.spread)
      post({ type: "idle" })
    })
  }
  tools = { toolNames, spread }
  const ready = prepared?.fits(toolNames, spread) ? prepared : prepareRealm(toolNames, spread)
  prepared = undefined
  const realm = ready.attach({
    print: (text) => {
      if (!state.settled) postOutput(runId, text)
    },
    call: (id, tool, params) => {
      if (state.settled) return
      const callId = nextCallId++
      pending.set(callId, { realm, id })
      post({ type: "call", runId, callId, tool, params })
    },
    done: (reusable) => finish({ type: "done", runId, sent, reusable }),
    fail: (prefix, thrown, reusable) => {
      const { summary, report } =
        "shown" in thrown ? thrownValueReport(thrown.shown, prefix) : prefixed(prefix, runtimeErrorReport(thrown, script, source))
      finish({ type: "failed", runId, error: summary, output: report, sent, reusable })
    },
  })
  state.realm = realm
  state.end = () => {
    realm.close()
    for (const [id, call] of pending) if (call.realm === realm) pending.delete(id)
  }
  let compiled: vm.Script
  try {
    compiled = compile(script, realm)
  } catch (error) {
    // A repair that does not compile either keeps the original script's error.
    const originalError = script === original ? undefined : compileError(original)
    const { summary, report } =
      originalError === undefined
        ? syntaxErrorReport(error, script, source)
        : syntaxErrorReport(originalError, original, { original, firstLine: 1 })
    finish({ type: "failed", runId, sent, reusable: true, error: summary, output: report })
    return
  }
  current = state
  // Evaluating the wrapper only makes the script's async function; `start` runs it in the realm.
  let main: unknown
  try {
    main = compiled.runInContext(realm.context)
  } catch (error) {
    // Only a script that closed the wrapper itself runs code here; its realm reports what it threw.
    realm.uncaught("Uncaught ", error)
    return
  }
  if (!realm.start(main)) finish({ type: "failed", runId, sent, reusable: false, error: "the script's realm could not start it", output: "the script's realm could not start it\n" })
}

function prefixed(prefix: string, { summary, report }: Report): Report {
  return { summary: prefix + summary, report: prefix + report }
}

/** Why `script` does not compile (only compiled, never run). */
function compileError(script: string): unknown {
  try {
    new vm.Script(wrap(script), { filename: FILENAME })
    return undefined
  } catch (error) {
    return error
  }
}
