// Evaluated inside the script's realm: structuredClone, AbortController and AbortSignal, written
// here so that every object a script gets from them is its own realm's.
(function (timers, encoding) {
  "use strict"
  const { apply, ownKeys } = Reflect
  const { getOwnPropertyDescriptor: describeProperty } = Object
  const { DOMException, isBuffer, viewTag } = encoding

  // ── structuredClone ──
  const cloneError = (what) => new DOMException(`${what} could not be cloned.`, "DataCloneError")
  const ERRORS = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError }
  function cloneValue(value, memo) {
    if (typeof value === "symbol") throw cloneError(String(value))
    if (typeof value === "function") throw cloneError(String(value).slice(0, 40))
    if (typeof value !== "object" || value === null) return value
    if (memo.has(value)) return memo.get(value)
    let copy
    const tag = viewTag(value)
    if (tag !== undefined) {
      const buffer = cloneValue(value.buffer, memo)
      copy = new globalThis[tag](buffer, value.byteOffset, value.length)
    } else if (isBuffer(value)) copy = value.slice(0)
    else if (value instanceof DataView) copy = new DataView(cloneValue(value.buffer, memo), value.byteOffset, value.byteLength)
    else if (value instanceof Date) copy = new Date(value.getTime())
    else if (value instanceof RegExp) copy = new RegExp(value.source, value.flags)
    else if (value instanceof Map) {
      copy = new Map()
      memo.set(value, copy)
      for (const [k, v] of value) copy.set(cloneValue(k, memo), cloneValue(v, memo))
      return copy
    } else if (value instanceof Set) {
      copy = new Set()
      memo.set(value, copy)
      for (const v of value) copy.add(cloneValue(v, memo))
      return copy
    } else if (value instanceof Error) {
      const Ctor = ERRORS[value.name] ?? Error
      copy = new Ctor(value.message)
      memo.set(value, copy)
      copy.stack = value.stack
      if ("cause" in value) copy.cause = cloneValue(value.cause, memo)
      return copy
    } else if (value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt) copy = Object(value.valueOf())
    else if (value instanceof WeakMap || value instanceof WeakSet || value instanceof Promise || value instanceof WeakRef) throw cloneError(`#<${value.constructor.name}>`)
    else {
      copy = Array.isArray(value) ? new Array(value.length) : {}
      memo.set(value, copy)
      for (const key of ownKeys(value)) {
        if (typeof key === "symbol") continue
        const property = describeProperty(value, key)
        if (property && property.enumerable) copy[key] = cloneValue(value[key], memo)
      }
      return copy
    }
    memo.set(value, copy)
    return copy
  }
  function structuredClone(value, options) {
    if (arguments.length === 0) throw new TypeError("structuredClone requires 1 argument")
    void options
    return cloneValue(value, new Map())
  }

  // ── AbortController ──
  const signalState = new WeakMap()
  class AbortSignal {
    constructor() {
      throw new TypeError("Illegal constructor")
    }
    static abort(reason) {
      const signal = makeSignal()
      abortSignal(signal, reason)
      return signal
    }
    static timeout(ms) {
      const signal = makeSignal()
      timers.setTimeout(() => abortSignal(signal, new DOMException("The operation timed out.", "TimeoutError")), ms)
      return signal
    }
    static any(signals) {
      const signal = makeSignal()
      for (const source of signals) {
        if (source.aborted) {
          abortSignal(signal, source.reason)
          break
        }
        source.addEventListener("abort", () => abortSignal(signal, source.reason), { once: true })
      }
      return signal
    }
    get aborted() {
      return signalState.get(this).aborted
    }
    get reason() {
      return signalState.get(this).reason
    }
    throwIfAborted() {
      if (this.aborted) throw this.reason
    }
    addEventListener(type, listener, options) {
      if (typeof listener !== "function" && !(listener && typeof listener.handleEvent === "function")) return
      const state = signalState.get(this)
      const once = typeof options === "object" && options !== null && Boolean(options.once)
      if (!state.listeners.some((entry) => entry.type === type && entry.listener === listener)) state.listeners.push({ type: String(type), listener, once })
    }
    removeEventListener(type, listener) {
      const state = signalState.get(this)
      state.listeners = state.listeners.filter((entry) => entry.type !== type || entry.listener !== listener)
    }
    dispatchEvent(event) {
      const state = signalState.get(this)
      const handler = event.type === "abort" ? state.onabort : null
      for (const entry of [...state.listeners]) {
        if (entry.type !== event.type) continue
        if (entry.once) this.removeEventListener(entry.type, entry.listener)
        try {
          if (typeof entry.listener === "function") apply(entry.listener, this, [event])
          else entry.listener.handleEvent(event)
        } catch (error) {
          timers.queueMicrotask(() => {
            throw error
          })
        }
      }
      if (typeof handler === "function") apply(handler, this, [event])
      return true
    }
    get onabort() {
      return signalState.get(this).onabort
    }
    set onabort(handler) {
      signalState.get(this).onabort = handler
    }
  }
  function makeSignal() {
    const signal = Object.create(AbortSignal.prototype)
    signalState.set(signal, { aborted: false, reason: undefined, listeners: [], onabort: null })
    return signal
  }
  function abortSignal(signal, reason) {
    const state = signalState.get(signal)
    if (state.aborted) return
    state.aborted = true
    state.reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason
    signal.dispatchEvent({ type: "abort", target: signal, currentTarget: signal, bubbles: false, cancelable: false, defaultPrevented: false, timeStamp: Date.now(), isTrusted: true })
  }
  const controllerSignals = new WeakMap()
  class AbortController {
    constructor() {
      controllerSignals.set(this, makeSignal())
    }
    get signal() {
      return controllerSignals.get(this)
    }
    abort(reason) {
      abortSignal(controllerSignals.get(this), reason)
    }
  }
  const isSignal = (value) => signalState.has(value)

  return { globals: { structuredClone, AbortController, AbortSignal }, isSignal }
})
