// Evaluated inside the script's realm: URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa,
// structuredClone, AbortController/AbortSignal and DOMException, written here so that every
// object a script gets from them is its own realm's. URL parsing and non-UTF-8 decoding ask the
// worker (`urlOp`, `decodeOp`), with strings in and a JSON string out.
(function (urlOp, decodeOp, timers) {
  "use strict"
  const { apply, ownKeys, getPrototypeOf } = Reflect
  const { getOwnPropertyDescriptor: describeProperty } = Object
  const { stringify, parse } = JSON
  const fromCharCode = String.fromCharCode
  const getter = (proto, key) => describeProperty(proto, key).get
  const typedTag = getter(getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)
  const bufferLength = getter(ArrayBuffer.prototype, "byteLength")
  const isBuffer = (value) => {
    try {
      apply(bufferLength, value, [])
      return true
    } catch {
      return false
    }
  }
  const viewTag = (value) => {
    try {
      return apply(typedTag, value, [])
    } catch {
      return undefined
    }
  }

  class DOMException extends Error {
    constructor(message = "", name = "Error") {
      super(message)
      Object.defineProperty(this, "name", { value: String(name), configurable: true, writable: true })
    }
  }

  // ── UTF-8 ──
  function utf8Encode(input) {
    const text = String(input)
    const out = []
    for (let i = 0; i < text.length; i++) {
      let code = text.charCodeAt(i)
      if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
        const next = text.charCodeAt(i + 1)
        if (next >= 0xdc00 && next <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00)
          i++
        }
      }
      if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd
      if (code < 0x80) out.push(code)
      else if (code < 0x800) out.push(0xc0 | (code >> 6), 0x80 | (code & 63))
      else if (code < 0x10000) out.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63))
      else out.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63))
    }
    return new Uint8Array(out)
  }
  /** WHATWG UTF-8 decode: each maximal invalid subpart becomes one U+FFFD (or an error when fatal). */
  function utf8Decode(bytes, fatal, start = 0, end = bytes.length) {
    let out = ""
    let chunk = []
    const bad = () => {
      if (fatal) throw new TypeError("The encoded data was not valid for encoding utf-8")
      chunk.push(0xfffd)
    }
    for (let i = start; i < end; ) {
      const byte = bytes[i]
      let need = 0
      let code = 0
      let lower = 0x80
      let upper = 0xbf
      if (byte < 0x80) {
        chunk.push(byte)
        i++
      } else {
        if (byte >= 0xc2 && byte <= 0xdf) (need = 1), (code = byte & 0x1f)
        else if (byte >= 0xe0 && byte <= 0xef) (need = 2), (code = byte & 0xf), byte === 0xe0 ? (lower = 0xa0) : byte === 0xed ? (upper = 0x9f) : 0
        else if (byte >= 0xf0 && byte <= 0xf4) (need = 3), (code = byte & 7), byte === 0xf0 ? (lower = 0x90) : byte === 0xf4 ? (upper = 0x8f) : 0
        else {
          bad()
          i++
          continue
        }
        let j = i + 1
        let ok = true
        for (let k = 0; k < need; k++, j++) {
          const next = bytes[j]
          if (j >= end || next < lower || next > upper) {
            ok = false
            break
          }
          lower = 0x80
          upper = 0xbf
          code = (code << 6) | (next & 63)
        }
        if (!ok) {
          bad()
          i = j
          continue
        }
        if (code >= 0x10000) chunk.push(0xd800 + ((code - 0x10000) >> 10), 0xdc00 + ((code - 0x10000) & 0x3ff))
        else chunk.push(code)
        i = j
      }
      if (chunk.length > 8000) {
        out += apply(fromCharCode, undefined, chunk)
        chunk = []
      }
    }
    return out + apply(fromCharCode, undefined, chunk)
  }
  function bytesOf(input) {
    if (input === undefined) return new Uint8Array(0)
    if (isBuffer(input)) return new Uint8Array(input)
    if (viewTag(input) !== undefined || input instanceof DataView) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
    throw new TypeError('The "input" argument must be an instance of ArrayBuffer or ArrayBufferView')
  }
  function latin1(bytes) {
    let out = ""
    for (let i = 0; i < bytes.length; i += 8000) out += apply(fromCharCode, undefined, Array.from(bytes.subarray(i, i + 8000)))
    return out
  }

  class TextEncoder {
    get encoding() {
      return "utf-8"
    }
    encode(input = "") {
      return utf8Encode(input)
    }
    encodeInto(input, destination) {
      const text = String(input)
      let read = 0
      let written = 0
      for (const char of text) {
        const bytes = utf8Encode(char)
        if (written + bytes.length > destination.length) break
        destination.set(bytes, written)
        written += bytes.length
        read += char.length
      }
      return { read, written }
    }
  }

  const decoderState = new WeakMap()
  class TextDecoder {
    constructor(label = "utf-8", options = {}) {
      const fatal = Boolean(options && options.fatal)
      const ignoreBOM = Boolean(options && options.ignoreBOM)
      const name = String(label).trim().toLowerCase()
      let encoding = ["utf-8", "utf8", "unicode-1-1-utf-8"].includes(name) ? "utf-8" : undefined
      if (encoding === undefined) {
        const answer = parse(decodeOp(name, fatal, ignoreBOM, ""))
        if (answer.error) throw new RangeError(`The "${String(label)}" encoding is not supported`)
        encoding = answer.encoding
      }
      decoderState.set(this, { encoding, fatal, ignoreBOM, rest: [], started: false })
    }
    get encoding() {
      return decoderState.get(this).encoding
    }
    get fatal() {
      return decoderState.get(this).fatal
    }
    get ignoreBOM() {
      return decoderState.get(this).ignoreBOM
    }
    decode(input, options = {}) {
      const state = decoderState.get(this)
      const stream = Boolean(options && options.stream)
      let bytes = bytesOf(input)
      if (state.encoding !== "utf-8") {
        const answer = parse(decodeOp(state.encoding, state.fatal, state.ignoreBOM, latin1(bytes)))
        if (answer.error) throw new TypeError(answer.error)
        return answer.text
      }
      if (state.rest.length) bytes = new Uint8Array([...state.rest, ...bytes])
      let end = bytes.length
      state.rest = []
      if (stream) {
        // Keep an incomplete sequence at the end for the next chunk.
        let back = 0
        while (back < 3 && back < end && (bytes[end - 1 - back] & 0xc0) === 0x80) back++
        const lead = bytes[end - 1 - back]
        const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
        if (back < end && size > back + 1) {
          state.rest = Array.from(bytes.subarray(end - 1 - back))
          end -= back + 1
        }
      }
      let start = 0
      if (!state.ignoreBOM && !state.started && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3
      if (end > 0) state.started = stream
      return utf8Decode(bytes, state.fatal, start, end)
    }
  }

  // ── base64 ──
  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  function btoa(input) {
    if (arguments.length === 0) throw new TypeError("btoa requires 1 argument")
    const text = String(input)
    let out = ""
    for (let i = 0; i < text.length; i += 3) {
      const codes = [text.charCodeAt(i), text.charCodeAt(i + 1), text.charCodeAt(i + 2)]
      for (let k = 0; k < 3 && i + k < text.length; k++) if (codes[k] > 0xff) throw new DOMException("The string contains invalid characters.", "InvalidCharacterError")
      const [a, b = 0, c = 0] = codes.map((code) => (code !== code ? 0 : code))
      const bits = (a << 16) | (b << 8) | c
      out += ALPHABET[bits >> 18] + ALPHABET[(bits >> 12) & 63]
      out += i + 1 < text.length ? ALPHABET[(bits >> 6) & 63] : "="
      out += i + 2 < text.length ? ALPHABET[bits & 63] : "="
    }
    return out
  }
  function atob(input) {
    if (arguments.length === 0) throw new TypeError("atob requires 1 argument")
    let text = String(input).replace(/[\t\n\f\r ]/g, "")
    if (text.length % 4 === 0) text = text.replace(/==?$/, "")
    if (text.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(text)) throw new DOMException("The string contains invalid characters.", "InvalidCharacterError")
    let out = ""
    let bits = 0
    let count = 0
    for (const char of text) {
      bits = (bits << 6) | ALPHABET.indexOf(char)
      count += 6
      if (count >= 8) {
        count -= 8
        out += fromCharCode((bits >> count) & 0xff)
      }
    }
    return out
  }

  // ── URLSearchParams and URL ──
  const paramLists = new WeakMap()
  const paramOwners = new WeakMap()
  function percentDecode(text) {
    const bytes = []
    for (let i = 0; i < text.length; i++) {
      const char = text[i]
      if (char === "%" && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 1, i + 3))) {
        bytes.push(parseInt(text.slice(i + 1, i + 3), 16))
        i += 2
      } else if (char === "+") bytes.push(0x20)
      else for (const byte of utf8Encode(text.codePointAt(i) > 0xffff ? text.slice(i, ++i + 1) : char)) bytes.push(byte)
    }
    return utf8Decode(bytes, false)
  }
  function formEncode(text) {
    let out = ""
    for (const byte of utf8Encode(text)) {
      const char = fromCharCode(byte)
      if (/[A-Za-z0-9*\-._]/.test(char)) out += char
      else if (byte === 0x20) out += "+"
      else out += "%" + (byte < 16 ? "0" : "") + byte.toString(16).toUpperCase()
    }
    return out
  }
  function parseQuery(query) {
    const list = []
    for (const part of String(query).replace(/^\?/, "").split("&")) {
      if (part === "") continue
      const at = part.indexOf("=")
      list.push(at < 0 ? [percentDecode(part), ""] : [percentDecode(part.slice(0, at)), percentDecode(part.slice(at + 1))])
    }
    return list
  }
  class URLSearchParams {
    constructor(init = "") {
      let list = []
      if (init instanceof URLSearchParams) list = paramLists.get(init).map(([k, v]) => [k, v])
      else if (typeof init === "object" && init !== null && typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          const entry = [...pair]
          if (entry.length !== 2) throw new TypeError("Each query pair must be an iterable [name, value] tuple")
          list.push([String(entry[0]), String(entry[1])])
        }
      } else if (typeof init === "object" && init !== null) {
        for (const key of ownKeys(init)) {
          const property = describeProperty(init, key)
          if (property && property.enumerable) list.push([String(key), String(init[key])])
        }
      } else list = parseQuery(init)
      paramLists.set(this, list)
    }
    get size() {
      return paramLists.get(this).length
    }
    #changed() {
      const owner = paramOwners.get(this)
      if (owner) owner(this.toString())
    }
    append(name, value) {
      paramLists.get(this).push([String(name), String(value)])
      this.#changed()
    }
    delete(name, value) {
      const list = paramLists.get(this)
      paramLists.set(this, list.filter(([k, v]) => k !== String(name) || (value !== undefined && v !== String(value))))
      this.#changed()
    }
    get(name) {
      const found = paramLists.get(this).find(([k]) => k === String(name))
      return found ? found[1] : null
    }
    getAll(name) {
      return paramLists.get(this).filter(([k]) => k === String(name)).map(([, v]) => v)
    }
    has(name, value) {
      return paramLists.get(this).some(([k, v]) => k === String(name) && (value === undefined || v === String(value)))
    }
    set(name, value) {
      const list = paramLists.get(this)
      const at = list.findIndex(([k]) => k === String(name))
      if (at < 0) list.push([String(name), String(value)])
      else paramLists.set(this, [...list.slice(0, at), [String(name), String(value)], ...list.slice(at + 1).filter(([k]) => k !== String(name))])
      this.#changed()
    }
    sort() {
      paramLists.get(this).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      this.#changed()
    }
    forEach(callback, thisArg) {
      for (const [k, v] of paramLists.get(this)) apply(callback, thisArg, [v, k, this])
    }
    *entries() {
      for (const [k, v] of paramLists.get(this)) yield [k, v]
    }
    *keys() {
      for (const [k] of paramLists.get(this)) yield k
    }
    *values() {
      for (const [, v] of paramLists.get(this)) yield v
    }
    [Symbol.iterator]() {
      return this.entries()
    }
    toString() {
      return paramLists.get(this).map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join("&")
    }
  }

  const urlParts = new WeakMap()
  const urlParams = new WeakMap()
  const PARTS = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"]
  const parseUrl = (input, base) => {
    const json = urlOp("parse", String(input), base === undefined ? undefined : String(base))
    return json ? parse(json) : undefined
  }
  class URL {
    constructor(input, base) {
      if (arguments.length === 0) throw new TypeError("URL requires 1 argument")
      const parts = parseUrl(input, base)
      if (!parts) throw new TypeError(`"${String(input)}" cannot be parsed as a URL.`)
      urlParts.set(this, parts)
    }
    static canParse(input, base) {
      return parseUrl(input, base) !== undefined
    }
    static parse(input, base) {
      return parseUrl(input, base) === undefined ? null : new URL(input, base)
    }
    get searchParams() {
      let params = urlParams.get(this)
      if (!params) {
        params = new URLSearchParams(urlParts.get(this).search)
        paramOwners.set(params, (query) => {
          const parts = parse(urlOp("set", urlParts.get(this).href, "search", query))
          urlParts.set(this, parts)
        })
        urlParams.set(this, params)
      }
      return params
    }
    toString() {
      return urlParts.get(this).href
    }
    toJSON() {
      return urlParts.get(this).href
    }
  }
  for (const part of PARTS) {
    const descriptor = {
      get() {
        return urlParts.get(this)[part]
      },
      configurable: true,
      enumerable: true,
    }
    if (part !== "origin") {
      descriptor.set = function (value) {
        if (part === "href") {
          const parts = parseUrl(value)
          if (!parts) throw new TypeError(`"${String(value)}" cannot be parsed as a URL.`)
          urlParts.set(this, parts)
        } else urlParts.set(this, parse(urlOp("set", urlParts.get(this).href, part, String(value))))
        const params = urlParams.get(this)
        if (params && (part === "href" || part === "search")) paramLists.set(params, parseQuery(urlParts.get(this).search))
      }
    }
    Object.defineProperty(URL.prototype, part, descriptor)
  }

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

  return {
    globals: { URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa, structuredClone, AbortController, AbortSignal, DOMException },
    URL,
    URLSearchParams,
    DOMException,
    utf8Encode,
    utf8Decode,
    bytesOf,
    latin1,
    isSignal,
    stringify,
  }
})
