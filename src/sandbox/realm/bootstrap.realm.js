// Evaluated inside each script's vm context before the script: installs the script's globals, all
// made here, of this realm. The worker's functions (`bridge`) stay in this closure; they take and
// return only strings, numbers and booleans, are always called directly (never through a
// property a script could replace, like Function.prototype.call), and never throw into the realm.
// What the worker calls back (`start`, `settle`, `fire`, …) is returned once, before the script
// runs, and takes only primitives too.
(function (bridge) {
  "use strict"
  const g = globalThis
  const { apply } = Reflect
  const { defineProperty } = Object
  const { stringify, parse } = JSON
  const then = Promise.prototype.then
  const RealmPromise = Promise
  const RealmError = Error
  const RealmTypeError = TypeError
  const RealmRangeError = RangeError
  const RealmProxy = Proxy
  const includes = String.prototype.includes
  const split = String.prototype.split
  const join = Array.prototype.join
  const slice = Array.prototype.slice
  const arrayIncludes = Array.prototype.includes
  const is = Object.is
  const hasOwn = Object.hasOwn
  const resolved = RealmPromise.resolve()

  /** A host function as the realm calls it: a failure to enter it (stack overflow) is the realm's own error. */
  const guard = (fn) =>
    function (...args) {
      try {
        return apply(fn, undefined, args)
      } catch {
        throw new RealmRangeError("Maximum call stack size exceeded")
      }
    }
  const print = guard(bridge.print)
  const format = guard(bridge.format)
  const callHost = guard(bridge.call)
  const setTimer = guard(bridge.setTimer)
  const clearTimer = guard(bridge.clearTimer)
  const done = guard(bridge.done)
  const soon = guard(bridge.soon)
  const fail = guard(bridge.fail)
  const toolNames = parse(bridge.toolNames)
  const spread = parse(bridge.spread)

  // The other parts of the realm (inspect, encoding, url, web, fetch), each a function of this
  // realm's own that makes its API: compiled and run here at their first use.
  const part = guard(bridge.part)

  let describer
  const describeArguments = (args) => (describer ??= part("inspect")(guard(bridge.peek), guard(bridge.peekStatus), format))(args)

  // ── console ──
  /** Node's format; what needs no inspecting is joined here, the rest is formatted by the worker. */
  function text(args) {
    let plain = true
    for (let i = 0; i < args.length && plain; i++) {
      const value = args[i]
      const type = typeof value
      if (type === "string") plain = i > 0 || !apply(includes, value, ["%"])
      else plain = (type === "number" && !is(value, -0)) || type === "boolean" || value === undefined || value === null
    }
    let out = ""
    if (plain) {
      for (let i = 0; i < args.length; i++) out += (i ? " " : "") + String(args[i])
      return out
    }
    let next = 0
    if (typeof args[0] === "string") {
      out = substitute(args[0], args)
      next = substitute.used
    }
    for (let i = next; i < args.length; i++) out += (i ? " " : "") + (typeof args[i] === "string" ? args[i] : inspectOne(args[i]))
    return out
  }
  /** Node's inspect of one value (never a string: the worker would read it as a format). */
  const inspectOne = (value) => format(describeArguments([value]))
  const ObjectToString = Object.prototype.toString
  const ErrorToString = Error.prototype.toString
  const numberText = (n) => (typeof n === "bigint" ? `${n}n` : is(n, -0) ? "-0" : String(n))
  /** Node's %s %d %i %f %j %o %O %c %% with the script's own values; `substitute.used` is the next argument. */
  function substitute(template, args) {
    let out = ""
    let a = 1
    let last = 0
    for (let i = 0; i < template.length - 1; i++) {
      if (template[i] !== "%") continue
      const kind = template[i + 1]
      if (kind === "%") {
        out += template.slice(last, i) + "%"
        last = i + 2
        i++
        continue
      }
      if (!"sdifjoOc".includes(kind) || a >= args.length) continue
      const value = args[a++]
      let piece
      if (kind === "s") {
        if (typeof value === "string") piece = value
        else if (typeof value === "bigint" || typeof value === "number") piece = numberText(value)
        else if (typeof value === "symbol") piece = String(value)
        else if (typeof value === "object" && value !== null && typeof value.toString === "function" && value.toString !== ObjectToString && value.toString !== ErrorToString && !Array.isArray(value)) piece = String(value)
        else piece = inspectOne(value)
      } else if (kind === "d") piece = typeof value === "bigint" ? `${value}n` : typeof value === "symbol" ? "NaN" : typeof value === "object" && value !== null && !("valueOf" in value) ? "NaN" : numberText(Number(value))
      else if (kind === "i") piece = typeof value === "bigint" ? `${value}n` : typeof value === "symbol" ? "NaN" : numberText(parseInt(value))
      else if (kind === "f") piece = typeof value === "symbol" ? "NaN" : numberText(parseFloat(value))
      else if (kind === "j") {
        try {
          piece = String(stringify(value))
        } catch {
          piece = "[Circular]"
        }
      } else if (kind === "c") piece = ""
      else piece = format(describeArguments([value]), kind)
      out += template.slice(last, i) + piece
      last = i + 2
      i++
    }
    substitute.used = a
    return out + template.slice(last)
  }
  const consoleObject = {}
  for (const name of ["log", "info", "warn", "error", "debug", "trace", "dir", "table"]) {
    consoleObject[name] = { [name](...args) { print(text(args) + "\n") } }[name]
  }

  // ── failures ──
  const textOf = (value, key) => {
    try {
      const v = value[key]
      return v === undefined || v === null ? undefined : String(v)
    } catch {
      return undefined
    }
  }
  /** What the worker needs to report a thrown value: strings only. */
  function thrown(value) {
    let isError = false
    try {
      isError = typeof value === "object" && value !== null && "message" in value
    } catch {}
    if (isError) return { name: textOf(value, "name"), message: textOf(value, "message") ?? "", stack: textOf(value, "stack") }
    let shown
    try {
      shown = format(describeArguments([value]))
    } catch {
      shown = "(a value that cannot be shown)"
    }
    return { shown }
  }
  let finished = false
  function report(value, prefix, reusable) {
    if (finished) return
    finished = true
    fail(prefix, stringify(thrown(value)), reusable && !lingering)
  }
  /** An error that escaped a callback ends the script, as it would end a Node program. */
  const uncaught = (error) => report(error, "Uncaught ", false)

  // ── tools ──
  const pending = new Map()
  let nextCall = 1
  const messageOf = (error) => textOf(error, "message") ?? String(error)
  /** The error a tool call rejects with points at the line of the call. */
  function atSite(error, site) {
    const frames = apply(join, apply(slice, apply(split, String(site.stack ?? ""), ["\n"]), [1]), ["\n"])
    error.stack = `${error.name}: ${error.message}\n${frames}`
    return error
  }
  // A failed tool call is the script's to handle as long as the script may still look at it: a
  // script that awaits another call first (`const a = bash(x); await bash(y); await a`) gets the
  // failure at `await a`, where its try/catch is. Only a failure nobody looked at within
  // UNSEEN_MS, or by the script's end, is an uncaught error. A call's promise says when it is
  // looked at: await, then, catch, finally and Promise.all all call its `then`, since its
  // constructor is not Promise's own. Inside, it is always handled, so the engine never calls
  // it unhandled (a worker run by `bun test` dies of that, whatever its listeners).
  const UNSEEN_MS = 1000
  const unseenFailures = []
  const arrayPush = Array.prototype.push
  const arrayIndexOf = Array.prototype.indexOf
  const arraySplice = Array.prototype.splice
  const ignore = () => {}
  let toolPromise
  const ToolPromise = class Promise extends RealmPromise {
    #call
    static {
      toolPromise = (executor, call) => {
        const promise = new ToolPromise(executor)
        promise.#call = call
        apply(then, promise, [undefined, ignore])
        return promise
      }
    }
    static get [Symbol.species]() {
      return RealmPromise
    }
    then(onFulfilled, onRejected) {
      const call = this.#call
      if (call && !call.seen) {
        call.seen = true
        const index = apply(arrayIndexOf, unseenFailures, [call])
        if (index !== -1) apply(arraySplice, unseenFailures, [index, 1])
      }
      return apply(then, this, [onFulfilled, onRejected])
    }
  }
  /** A failed call no one has looked at yet: uncaught unless it is looked at in time. */
  function unseen(call, error) {
    call.error = error
    apply(arrayPush, unseenFailures, [call])
    schedule(() => {
      if (!call.seen) uncaughtFailure(error)
    }, UNSEEN_MS, [], false)
  }
  const uncaughtFailure = (error) => report(error, "Uncaught (in promise) ", false)

  function callTool(name, args, site) {
    const call = { seen: false }
    return toolPromise((resolve, reject) => {
      let params
      try {
        if (apply(arrayIncludes, spread, [name])) {
          // Trailing undefined arguments are left out rather than sent as null.
          let count = args.length
          while (count > 0 && args[count - 1] === undefined) count--
          params = stringify(apply(slice, args, [0, count]))
        } else params = args.length === 0 || args[0] === undefined ? undefined : stringify(args[0])
      } catch (error) {
        const failure = atSite(new RealmError(`${name}: parameters are not JSON: ${messageOf(error)}`), site)
        reject(failure)
        unseen(call, failure)
        return
      }
      const id = nextCall++
      pending.set(id, { resolve, reject, site, call })
      callHost(id, name, params)
    }, call)
  }
  /**
   * "mcp.server" alone is a server that failed to start or was skipped: each of its functions calls
   * that tool, which rejects saying why (rather than a TypeError on undefined).
   */
  const unavailable = (name) =>
    new RealmProxy(
      {},
      {
        // What inspecting, printing or awaiting it reads (then, toJSON, toString…) stays plain.
        get: (target, key) =>
          typeof key !== "string" || key === "then" || key === "toJSON" || key in target
            ? target[key]
            : { [key]() { return callTool(name, [], new RealmError()) } }[key],
      },
    )
  /** `parent[key]`, an object of its own: a server named toString gets one, not Object.prototype.toString. */
  const own = (parent, key) => (hasOwn(parent, key) && parent[key] != null ? parent[key] : (parent[key] = {}))
  for (const name of toolNames) {
    const fn = { [name](...args) { return callTool(name, args, new RealmError()) } }[name]
    // "mcp.server.tool" is g.mcp.server.tool (the tool part kept whole); "mcp.describe" is g.mcp.describe.
    const [head, ...rest] = apply(split, name, ["."])
    if (rest.length === 0) g[name] = fn
    else if (head === "mcp" && rest.length === 1 && rest[0] !== "describe") own(g, "mcp")[rest[0]] = unavailable(name)
    else if (rest.length === 1) own(g, head)[rest[0]] = fn
    else own(own(g, head), rest[0])[apply(join, rest.slice(1), ["."])] = fn
  }

  // ── timers ──
  const timers = new Map()
  const timerIds = new WeakMap()
  let nextTimer = 1
  const unreferenced = new WeakSet()
  class Timeout {
    constructor(id) {
      timerIds.set(this, id)
    }
    // A script's timers never keep anything alive past its end; ref/unref only change hasRef().
    ref() {
      unreferenced.delete(this)
      return this
    }
    unref() {
      unreferenced.add(this)
      return this
    }
    hasRef() {
      return timers.has(timerIds.get(this)) && !unreferenced.has(this)
    }
    refresh() {
      const id = timerIds.get(this)
      const timer = timers.get(id)
      if (timer) setTimer(id, timer.ms, timer.repeat)
      return this
    }
    close() {
      clear(this)
      return this
    }
    [Symbol.toPrimitive]() {
      return timerIds.get(this)
    }
  }
  function schedule(fn, ms, args, repeat) {
    if (typeof fn !== "function") throw new RealmTypeError(`The "callback" argument must be of type function. Received ${fn === null ? "null" : typeof fn}`)
    const id = nextTimer++
    const delay = Number(ms) > 0 ? Math.min(Number(ms), 2147483647) : repeat ? 1 : 0
    timers.set(id, { fn, args, ms: delay, repeat })
    setTimer(id, delay, repeat)
    return new Timeout(id)
  }
  function clear(timer) {
    const id = typeof timer === "number" ? timer : timerIds.get(timer)
    if (id === undefined || !timers.has(id)) return
    timers.delete(id)
    clearTimer(id)
  }
  function fire(id) {
    const timer = timers.get(id)
    if (!timer) return
    if (!timer.repeat) timers.delete(id)
    try {
      apply(timer.fn, undefined, timer.args)
    } catch (error) {
      uncaught(error)
    }
  }
  const timerApi = {
    setTimeout: function setTimeout(fn, ms, ...args) { return schedule(fn, ms, args, false) },
    setInterval: function setInterval(fn, ms, ...args) { return schedule(fn, ms, args, true) },
    clearTimeout: function clearTimeout(timer) { clear(timer) },
    clearInterval: function clearInterval(timer) { clear(timer) },
    queueMicrotask: function queueMicrotask(fn) {
      if (typeof fn !== "function") throw new RealmTypeError(`The "callback" argument must be of type function. Received ${typeof fn}`)
      apply(then, resolved, [() => {
        try {
          fn()
        } catch (error) {
          uncaught(error)
        }
      }])
    },
  }

  // ── web APIs ──
  // Made on first use: most scripts never touch them, and a fresh realm per script must be cheap.
  let encodingApi
  let urlApi
  let webApi
  let fetchApi
  const encoding = () => (encodingApi ??= part("encoding")(guard(bridge.decode)))
  const urls = () => (urlApi ??= part("url")(guard(bridge.url), encoding()))
  const web = () => (webApi ??= part("web")(timerApi, encoding()))
  const fetching = () => (fetchApi ??= part("fetch")(guard(bridge.fetch), guard(bridge.abortFetch), { ...encoding(), ...urls(), ...web() }))
  const lazy = {
    URL: urls, URLSearchParams: urls, TextEncoder: encoding, TextDecoder: encoding, atob: encoding, btoa: encoding,
    DOMException: encoding, structuredClone: web, AbortController: web, AbortSignal: web,
    fetch: fetching, Headers: fetching, Request: fetching, Response: fetching,
  }

  // ── stack trace hook ──
  // The engine hands Error.prepareStackTrace an array and call sites of the worker's realm; the
  // script's hook gets realm copies holding only what the sites say as primitives.
  const SITE = ["getFileName", "getLineNumber", "getColumnNumber", "getFunctionName", "getMethodName", "getTypeName", "getScriptNameOrSourceURL", "getEvalOrigin", "isNative", "isToplevel", "isEval", "isConstructor", "isAsync", "isPromiseAll", "getPromiseIndex", "toString"]
  let userPrepare
  function prepareStackTrace(error, sites) {
    const copies = []
    const count = typeof sites === "object" && sites !== null ? Number(sites.length) || 0 : 0
    for (let i = 0; i < count; i++) {
      const site = sites[i]
      const copy = { getThis: () => undefined, getFunction: () => undefined }
      for (const method of SITE) {
        let value
        try {
          value = site[method]()
        } catch {}
        const plain = typeof value === "object" || typeof value === "function" ? (value === null ? null : undefined) : value
        copy[method] = () => plain
      }
      copies.push(copy)
    }
    return apply(userPrepare, undefined, [error, copies])
  }
  defineProperty(RealmError, "prepareStackTrace", {
    get: () => (typeof userPrepare === "function" ? prepareStackTrace : undefined),
    set: (hook) => {
      userPrepare = hook
    },
    configurable: false,
  })

  // ── code the engine calls later ──
  // Timers, tool calls and fetch go through the bridge, which drops them when the script ends.
  // These the engine itself resolves or calls later, maybe while a later script runs in this
  // worker: its failure would be blamed on that script, and its hooks would meet that script's
  // objects. A script that used one does not give its worker back.
  let lingering = false
  const RealmReflect = Reflect
  const marking = (target) =>
    new RealmProxy(target, {
      apply(fn, self, args) {
        lingering = true
        return apply(fn, self, args)
      },
      construct(fn, args, newTarget) {
        lingering = true
        return RealmReflect.construct(fn, args, newTarget)
      },
    })
  const mark = (holder, name) => {
    if (typeof holder?.[name] === "function") defineProperty(holder, name, { value: marking(holder[name]), writable: true, configurable: true, enumerable: false })
  }
  mark(Atomics, "waitAsync")
  for (const name of ["compile", "instantiate", "compileStreaming", "instantiateStreaming", "promising"]) mark(g.WebAssembly, name)
  mark(g, "FinalizationRegistry")

  // ── the globals ──
  // The context's own console is replaced, and ShadowRealm too: a ShadowRealm's global is a fresh
  // host global. (Overwritten, not deleted: deleting a global's property costs 0.3 ms.)
  const globals = { console: consoleObject, ShadowRealm: undefined, ...timerApi }
  for (const name of Object.keys(globals)) defineProperty(g, name, { value: globals[name], writable: true, configurable: true, enumerable: false })
  for (const name of Object.keys(lazy)) {
    const settle = (value) => defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false })
    defineProperty(g, name, {
      get() {
        const value = lazy[name]().globals[name]
        settle(value)
        return value
      },
      set: settle,
      configurable: true,
      enumerable: false,
    })
  }

  return {
    /** Runs the compiled script (an async function); its outcome reaches the worker by `done`/`fail`. */
    start(main) {
      // `main` is the script's async function — unless the script closed the wrapper itself
      // (`}); (function () {`): whatever it is, its outcome settles the run.
      let outcome
      try {
        outcome = typeof main === "function" ? main() : main
      } catch (error) {
        return report(error, "", true)
      }
      const settled = new RealmPromise((resolve) => resolve(outcome))
      // The script ends once its microtasks are over and the engine has reported the rejections
      // nobody handled (`Promise.reject(e)` without a catch), as a Node program would: `ended`.
      apply(then, settled, [soon, (error) => report(error, "", true)])
    },
    ended() {
      if (unseenFailures.length > 0) return uncaughtFailure(unseenFailures[0].error)
      if (!finished) {
        finished = true
        done(!lingering)
      }
    },
    settle(id, ok, value) {
      const entry = pending.get(id)
      if (!entry) return
      pending.delete(id)
      if (!ok) {
        const error = atSite(new RealmError(value), entry.site)
        entry.reject(error)
        if (!entry.call.seen) unseen(entry.call, error)
        return
      }
      let result
      try {
        result = value === undefined ? undefined : parse(value)
      } catch {}
      entry.resolve(result)
    },
    fire,
    fetched(id, ok, meta, body) {
      if (fetchApi) fetchApi.pending.settle(id, ok, meta, body)
    },
    uncaught(prefix, value) {
      report(value, prefix, false)
    },
    importError(specifier) {
      return new RealmTypeError(`Cannot import ${stringify(String(specifier))}: scripts have no modules; the tools are globals`)
    },
  }
})
