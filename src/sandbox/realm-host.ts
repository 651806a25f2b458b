// A script's realm as the worker sees it: a fresh vm context whose every global is made by the
// realm's own code (realm/*.realm.js), and the bridge those globals call. Each bridge function
// checks that its arguments are primitives, returns only primitives (or, `part`, a function the
// realm's own code made), and never throws, so nothing of this thread is ever handed to the
// script's realm. The realm's entry points, returned before the script runs, are called with
// primitives only (and, for an unhandled rejection, the script's own value).
import vm from "node:vm"
import bootstrapText from "./realm/bootstrap.realm.js" with { type: "text" }
import encodingText from "./realm/encoding.realm.js" with { type: "text" }
import fetchText from "./realm/fetch.realm.js" with { type: "text" }
import inspectText from "./realm/inspect.realm.js" with { type: "text" }
import urlText from "./realm/url.realm.js" with { type: "text" }
import webText from "./realm/web.realm.js" with { type: "text" }
import { formatDescribed } from "./rebuild.ts"
import { errorMessage } from "../util/error-message.ts"

/** What the worker learns from a script: each hook gets primitives only. */
export interface RealmHooks {
  print(text: string): void
  call(id: number, tool: string, params: string | undefined): void
  /** `reusable`: false when the engine may still call the script's code later. */
  done(reusable: boolean): void
  /** `thrown`: the error's name, message and stack, or how a non-error value shows. */
  fail(prefix: string, thrown: { name?: string; message: string; stack?: string } | { shown: string }, reusable: boolean): void
}

export interface Realm {
  context: vm.Context
  /** Runs the script's compiled async function; false if the realm could not start it. */
  start(main: unknown): boolean
  settle(id: number, ok: boolean, value: string | undefined): void
  uncaught(prefix: string, reason: unknown): void
  importError(specifier: string): unknown
  /** Stops the realm's timers; answers to its requests are dropped. */
  close(): void
}

/** The realm's own entry points; their results are never looked at. */
interface Entry {
  start(main: unknown): void
  ended(): void
  settle(id: number, ok: boolean, value: string | undefined): void
  fire(id: number): void
  fetched(id: number, ok: boolean, meta: string, body: string): void
  uncaught(prefix: string, reason: unknown): void
  importError(specifier: string): unknown
}

// Compiled once per worker; run in every context.
const BOOTSTRAP = new vm.Script(`(${bootstrapText})`, { filename: "clanka:realm" })
/**
 * The realm's other parts, compiled at their first use in this worker: compiling all of them
 * with the bootstrap cost a fresh worker ~1.3 ms more before its first script, which mostly uses
 * none of them.
 */
const PARTS = new Map<string, string | vm.Script>([
  ["inspect", inspectText],
  ["encoding", encodingText],
  ["url", urlText],
  ["web", webText],
  ["fetch", fetchText],
])
function partScript(name: string): vm.Script | undefined {
  const part = PARTS.get(name)
  if (typeof part !== "string") return part
  const script = new vm.Script(`(${part})`, { filename: "clanka:realm" })
  PARTS.set(name, script)
  return script
}
const URL_PARTS = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"] as const

const str = (value: unknown): string => (typeof value === "string" ? value : "")
const num = (value: unknown): number => (typeof value === "number" ? value : 0)

/** Calls into the realm; what it throws is the script's and is not looked at. False if it threw. */
function enter<A extends unknown[]>(fn: (...args: A) => unknown, ...args: A): boolean {
  try {
    fn(...args)
    return true
  } catch {
    return false
  }
}

function urlParts(url: URL): string {
  const parts: Record<string, string> = {}
  for (const part of URL_PARTS) parts[part] = url[part]
  return JSON.stringify(parts)
}

/** A realm made ahead of its script, for these tools: `attach` gives it the script's hooks, once. */
export interface PreparedRealm {
  /** Whether it was made for these tools. */
  fits(toolNames: readonly string[], spread: readonly string[]): boolean
  attach(hooks: RealmHooks): Realm
}

/**
 * Makes a realm before its script is known (the first one costs a fresh worker ~2 ms): the
 * bridge reaches the script's hooks only once they are attached, and no code of the realm's runs
 * meanwhile but its own setup.
 */
export function prepareRealm(toolNames: readonly string[], spread: readonly string[]): PreparedRealm {
  let hooks: RealmHooks = DETACHED
  const context = vm.createContext(vm.constants.DONT_CONTEXTIFY)
  const timers = new Map<number, ReturnType<typeof setTimeout>>()
  const requests = new Map<number, AbortController>()
  let closed = false
  let entry: Entry

  const bridge = {
    toolNames: JSON.stringify(toolNames),
    spread: JSON.stringify(spread),
    print(text: unknown) {
      try {
        hooks.print(str(text))
      } catch {}
    },
    format(json: unknown, specifier: unknown): string {
      try {
        return formatDescribed(str(json), specifier === "o" || specifier === "O" ? specifier : undefined)
      } catch {
        return ""
      }
    },
    call(id: unknown, tool: unknown, params: unknown) {
      try {
        hooks.call(num(id), str(tool), typeof params === "string" ? params : undefined)
      } catch {}
    },
    done(reusable: unknown) {
      try {
        hooks.done(reusable === true)
      } catch {}
    },
    // Calls the realm's `ended` after this turn of the event loop: after the engine has reported
    // the rejections no one handled (setImmediate comes after that report, setTimeout may not).
    soon() {
      try {
        if (!closed) setImmediate(() => closed || enter(entry.ended))
      } catch {}
    },
    fail(prefix: unknown, json: unknown, reusable: unknown) {
      try {
        const parsed = JSON.parse(str(json)) as Record<string, unknown>
        const thrown =
          typeof parsed.shown === "string"
            ? { shown: parsed.shown }
            : { name: typeof parsed.name === "string" ? parsed.name : undefined, message: str(parsed.message), stack: typeof parsed.stack === "string" ? parsed.stack : undefined }
        hooks.fail(str(prefix), thrown, reusable === true)
      } catch {}
    },
    // Bun.peek reads a promise's state natively: no script code runs, and what it returns is the
    // realm's own value.
    peekStatus(promise: unknown): string {
      try {
        return Bun.peek.status(promise as Promise<unknown>)
      } catch {
        return "pending"
      }
    },
    peek(promise: unknown): unknown {
      try {
        return Bun.peek(promise as Promise<unknown>)
      } catch {
        return undefined
      }
    },
    setTimer(id: unknown, ms: unknown, repeat: unknown) {
      try {
        const key = num(id)
        clearTimeout(timers.get(key))
        if (closed) return
        const fire = () => {
          if (repeat !== true) timers.delete(key)
          enter(entry.fire, key)
        }
        timers.set(key, repeat === true ? setInterval(fire, num(ms)) : setTimeout(fire, num(ms)))
      } catch {}
    },
    clearTimer(id: unknown) {
      try {
        clearTimeout(timers.get(num(id)))
        timers.delete(num(id))
      } catch {}
    },
    url(op: unknown, a: unknown, b: unknown, c: unknown): string {
      try {
        if (op === "parse") return urlParts(typeof b === "string" ? new URL(str(a), b) : new URL(str(a)))
        const url = new URL(str(a))
        const part = str(b)
        if ((URL_PARTS as readonly string[]).includes(part) && part !== "origin") (url as unknown as Record<string, string>)[part] = str(c)
        return urlParts(url)
      } catch {
        return ""
      }
    },
    decode(label: unknown, fatal: unknown, ignoreBOM: unknown, bytes: unknown): string {
      try {
        const decoder = new TextDecoder(str(label) as "utf-8", { fatal: fatal === true, ignoreBOM: ignoreBOM === true })
        return JSON.stringify({ encoding: decoder.encoding, text: decoder.decode(Buffer.from(str(bytes), "latin1")) })
      } catch (error) {
        return JSON.stringify({ error: errorMessage(error) })
      }
    },
    fetch(id: unknown, json: unknown, body: unknown) {
      const key = num(id)
      try {
        const request = JSON.parse(str(json)) as { url: string; method: string; headers: [string, string][]; redirect: "follow" | "manual" | "error" }
        const controller = new AbortController()
        requests.set(key, controller)
        fetch(str(request.url), {
          method: str(request.method),
          headers: Array.isArray(request.headers) ? request.headers.map(([k, v]) => [str(k), str(v)] as [string, string]) : [],
          body: typeof body === "string" ? Buffer.from(body, "latin1") : undefined,
          redirect: request.redirect,
          signal: controller.signal,
        })
          .then(async (response) => {
            const bytes = Buffer.from(await response.arrayBuffer()).toString("latin1")
            const meta = { status: response.status, statusText: response.statusText, headers: [...response.headers], url: response.url, redirected: response.redirected }
            if (requests.delete(key) && !closed) enter(entry.fetched, key, true, JSON.stringify(meta), bytes)
          })
          .catch((error) => {
            if (requests.delete(key) && !closed) enter(entry.fetched, key, false, errorMessage(error), "")
          })
      } catch (error) {
        requests.delete(key)
        const message = errorMessage(error)
        queueMicrotask(() => enter(entry.fetched, key, false, message, ""))
      }
    },
    // The maker of a part of the realm: made by running that part's code in the realm, so it is
    // the realm's own function.
    part(name: unknown): unknown {
      try {
        return typeof name === "string" ? partScript(name)?.runInContext(context) : undefined
      } catch {
        return undefined
      }
    },
    abortFetch(id: unknown) {
      try {
        requests.get(num(id))?.abort()
        requests.delete(num(id))
      } catch {}
    },
  }

  const install = BOOTSTRAP.runInContext(context) as (bridge: unknown) => Entry
  entry = install(bridge)
  // Read once, now, before any script code exists in the realm.
  const { start, settle, uncaught, importError } = entry
  entry = { ...entry }
  const key = JSON.stringify([toolNames, spread])

  const realm: Realm = {
    context,
    start: (main) => enter(start, main),
    settle: (id, ok, value) => enter(settle, id, ok, value),
    uncaught: (prefix, reason) => enter(uncaught, prefix, reason),
    importError: (specifier) => importError(specifier),
    close() {
      closed = true
      for (const timer of timers.values()) clearTimeout(timer)
      timers.clear()
      // Requests already sent go on, as they did when the script's fetch was this thread's; their
      // answers are dropped.
      requests.clear()
    },
  }
  return {
    fits: (names, spreadNames) => JSON.stringify([names, spreadNames]) === key,
    attach(scriptHooks) {
      if (hooks !== DETACHED) throw new Error("a realm serves one script")
      hooks = scriptHooks
      return realm
    },
  }
}

/** The hooks of a realm no script has yet: nothing reaches the worker through them. */
const DETACHED: RealmHooks = { print() {}, call() {}, done() {}, fail() {} }
