// Runs scripts, one at a time, each in a fresh vm context whose globals are the tools, console
// and a few web-standard APIs. Tool calls cross to the main thread as messages. A runaway script
// is stopped by the main thread terminating this worker.
import vm from "node:vm"
import { formatWithOptions } from "node:util"
import { FILENAME, runtimeErrorReport, syntaxErrorReport, wrap, type Source } from "./error-report.ts"
import { prepareScript } from "./repair.ts"
import type { ToMain, ToWorker } from "./messages.ts"

declare const self: { onmessage: ((event: MessageEvent<ToWorker>) => void) | null; postMessage(message: ToMain): void }

let toolNames: string[] = []
// Flow control: `sent` counts output characters posted; the main thread adds what it has taken
// to `acked`. Both wrap modulo 2^32, so their difference is taken as an int32.
let acked: Int32Array<ArrayBufferLike> = new Int32Array(1)
let outputWindow = Infinity
let sent = 0

/** A context's own JSON and Error: values handed to a script must belong to its realm. */
interface Realm {
  JSON: JSON
  Error: ErrorConstructor
}
const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void; realm: Realm }>()
let nextCallId = 1

/** The script running now, if any: errors that escape it are reported against it. */
let current: { runId: number; script: string; source: Source; settled: boolean } | undefined

self.onmessage = (event) => {
  const message = event.data
  if (message.type === "init") {
    toolNames = message.toolNames
    acked = message.acked
    outputWindow = message.window
  } else if (message.type === "run") void run(message.runId, message.script)
  else if (message.type === "result") {
    const call = pending.get(message.callId)
    if (!call) return
    pending.delete(message.callId)
    if (message.ok) call.resolve(message.value === undefined ? undefined : call.realm.JSON.parse(message.value))
    else call.reject(new call.realm.Error(message.error))
  }
}

// A rejection nobody handles or an error thrown from a timer ends the script, as it would end a
// Node program; the worker is not reused, since the script's other code may still be running.
process.on("unhandledRejection", (reason) => failCurrent(reason, "Uncaught (in promise) "))
process.on("uncaughtException", (error) => failCurrent(error, "Uncaught "))

// Nothing in this thread may write to the process's stdout, which may carry the protocol:
// whatever reaches it becomes the script's output instead.
for (const stream of [process.stdout, process.stderr]) {
  stream.write = ((chunk: unknown) => {
    if (current && !current.settled) postOutput(current.runId, typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk as Uint8Array))
    return true
  }) as typeof stream.write
}

function failCurrent(error: unknown, prefix: string): void {
  if (!current || current.settled) return
  current.settled = true
  const { summary, report } = runtimeErrorReport(error, current.script, current.source)
  post({ type: "failed", runId: current.runId, error: prefix + summary, output: prefix + report, sent, reusable: false })
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
function compile(script: string): vm.Script {
  return new vm.Script(wrap(script), { filename: FILENAME })
}

async function run(runId: number, original: string): Promise<void> {
  const timers = new Set<ReturnType<typeof setTimeout>>()
  // Strips a wrapping code fence and repairs templates only when the script needs it.
  const { script, firstLine } = prepareScript(original)
  const source: Source = { original, firstLine }
  let compiled: vm.Script
  try {
    compiled = compile(script)
  } catch (error) {
    // A repair that does not compile either keeps the original script's error.
    const originalError = script === original ? undefined : compileError(original)
    const { summary, report } =
      originalError === undefined
        ? syntaxErrorReport(error, script, source)
        : syntaxErrorReport(originalError, original, { original, firstLine: 1 })
    post({ type: "failed", runId, sent, reusable: true, error: summary, output: report })
    return
  }
  const state = { runId, script, source, settled: false }
  current = state
  const { context, realm } = createContext(runId, timers)
  try {
    await compiled.runInContext(context)
    if (!state.settled) post({ type: "done", runId, sent })
  } catch (error) {
    if (!state.settled) {
      const { summary, report } = runtimeErrorReport(error, script, source)
      post({ type: "failed", runId, error: summary, output: report, sent, reusable: true })
    }
  } finally {
    state.settled = true
    if (current === state) current = undefined
    for (const timer of timers) clearTimeout(timer)
    for (const [id, call] of pending) if (call.realm === realm) pending.delete(id)
  }
}

/** What the context's own bootstrap receives; none of it is reachable from the script. */
interface Host {
  names: string[]
  print(...args: unknown[]): void
  call(tool: string, args: unknown[], site: Error): Promise<unknown>
  fetch: typeof fetch
  setTimeout: typeof setTimeout
  setInterval: typeof setInterval
  clearTimeout: typeof clearTimeout
  clearInterval: typeof clearInterval
}

// Runs inside the context: the script's globals are the context's own functions, so reflection
// on them (`console.log.constructor`) finds the context's Function, not this thread's.
// `site` records where the script called a tool, for the line of an uncaught rejection.
const BOOTSTRAP = `(function (host) {
  "use strict"
  const g = globalThis
  const print = function (...args) { host.print(...args) }
  g.console = { log: print, info: print, warn: print, error: print, debug: print, trace: print, dir: print, table: print }
  g.fetch = function (input, init) { return host.fetch(input, init) }
  g.setTimeout = function (fn, ms, ...args) { return host.setTimeout(fn, ms, ...args) }
  g.setInterval = function (fn, ms, ...args) { return host.setInterval(fn, ms, ...args) }
  g.clearTimeout = function (id) { host.clearTimeout(id) }
  g.clearInterval = function (id) { host.clearInterval(id) }
  for (const name of host.names) g[name] = function (...args) { return host.call(name, args, new Error()) }
  return { JSON, Error }
})`

function createContext(runId: number, timers: Set<ReturnType<typeof setTimeout>>): { context: vm.Context; realm: Realm } {
  const context = vm.createContext({
    Headers, Request, Response, URL, URLSearchParams, TextEncoder, TextDecoder, AbortController,
    atob, btoa, structuredClone,
  })
  let realm: Realm
  const call = (tool: string, args: unknown[], site: Error): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const callId = nextCallId++
      const rejectAtSite = (error: Error) => {
        error.stack = `${error.name}: ${error.message}\n${String(site.stack ?? "").split("\n").slice(1).join("\n")}`
        reject(error)
      }
      pending.set(callId, { resolve, reject: rejectAtSite, realm })
      let params: string | undefined
      let second: string | undefined
      try {
        params = args.length === 0 || args[0] === undefined ? undefined : JSON.stringify(args[0])
        second = args[1] === undefined ? undefined : JSON.stringify(args[1])
      } catch (error) {
        pending.delete(callId)
        rejectAtSite(new realm.Error(`${tool}: parameters are not JSON: ${(error as Error).message}`))
        return
      }
      post({ type: "call", runId, callId, tool, params, ...(second === undefined ? {} : { second }) })
    })
  const track =
    <T extends (...args: any[]) => ReturnType<typeof setTimeout>>(schedule: T) =>
    (...args: Parameters<T>) => {
      const timer = schedule(...args)
      timers.add(timer)
      return timer
    }
  const host: Host = {
    names: toolNames,
    print: (...args) => postOutput(runId, formatWithOptions({ colors: false }, ...args) + "\n"),
    call,
    fetch,
    setTimeout: track(setTimeout) as typeof setTimeout,
    setInterval: track(setInterval) as typeof setInterval,
    clearTimeout,
    clearInterval,
  }
  const install = new vm.Script(BOOTSTRAP).runInContext(context) as (host: Host) => Realm
  realm = install(host)
  return { context, realm }
}

function compileError(script: string): unknown {
  try {
    compile(script)
    return undefined
  } catch (error) {
    return error
  }
}
