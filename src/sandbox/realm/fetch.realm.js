// Evaluated inside the script's realm: fetch, Headers, Request and Response, written here so every
// object they give a script is its realm's own. The worker performs the request (`fetchOp`): the
// request crosses as a JSON string and its body as a binary string; the response comes back the
// same way through `pending.settle`.
(function (fetchOp, abortOp, web) {
  "use strict"
  const { apply } = Reflect
  const { stringify, parse } = JSON
  const { URL, URLSearchParams, DOMException, utf8Encode, utf8Decode, bytesOf, latin1, isSignal } = web

  // ── Headers ──
  const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
  const headerLists = new WeakMap()
  function checkName(name) {
    const text = String(name)
    if (!TOKEN.test(text)) throw new TypeError(`Invalid header name: "${text}"`)
    return text.toLowerCase()
  }
  function checkValue(value) {
    const text = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "")
    if (/[\0\r\n]/.test(text)) throw new TypeError(`Invalid header value: "${text}"`)
    return text
  }
  class Headers {
    constructor(init) {
      headerLists.set(this, [])
      if (init === undefined || init === null) return
      if (init instanceof Headers) for (const [k, v] of headerLists.get(init)) this.append(k, v)
      else if (typeof init === "object" && typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          const entry = [...pair]
          if (entry.length !== 2) throw new TypeError("Header pairs must contain exactly 2 items")
          this.append(entry[0], entry[1])
        }
      } else if (typeof init === "object") for (const key of Object.keys(init)) this.append(key, init[key])
      else throw new TypeError("Headers must be an object or an iterable of pairs")
    }
    append(name, value) {
      headerLists.get(this).push([checkName(name), checkValue(value)])
    }
    delete(name) {
      const key = checkName(name)
      headerLists.set(this, headerLists.get(this).filter(([k]) => k !== key))
    }
    get(name) {
      const key = checkName(name)
      const values = headerLists.get(this).filter(([k]) => k === key).map(([, v]) => v)
      return values.length === 0 ? null : values.join(", ")
    }
    getSetCookie() {
      return headerLists.get(this).filter(([k]) => k === "set-cookie").map(([, v]) => v)
    }
    has(name) {
      const key = checkName(name)
      return headerLists.get(this).some(([k]) => k === key)
    }
    set(name, value) {
      const key = checkName(name)
      headerLists.set(this, [...headerLists.get(this).filter(([k]) => k !== key), [key, checkValue(value)]])
    }
    forEach(callback, thisArg) {
      for (const [k, v] of this) apply(callback, thisArg, [v, k, this])
    }
    *entries() {
      const names = [...new Set(headerLists.get(this).map(([k]) => k))].sort()
      for (const name of names) {
        if (name === "set-cookie") for (const cookie of this.getSetCookie()) yield [name, cookie]
        else yield [name, this.get(name)]
      }
    }
    *keys() {
      for (const [k] of this) yield k
    }
    *values() {
      for (const [, v] of this) yield v
    }
    [Symbol.iterator]() {
      return this.entries()
    }
    toJSON() {
      return Object.fromEntries(this)
    }
    get count() {
      return [...this].length
    }
  }
  const headerPairs = (headers) => [...headers]

  // ── bodies ──
  const bodies = new WeakMap()
  /** The bytes and content type of a body given to Request or Response. */
  function extract(body) {
    if (body === undefined || body === null) return { bytes: null, type: null }
    // Bun sends text/plain for a string body without showing it in the headers.
    if (typeof body === "string") return { bytes: utf8Encode(body), type: null, wire: "text/plain;charset=UTF-8" }
    if (body instanceof URLSearchParams) return { bytes: utf8Encode(body.toString()), type: "application/x-www-form-urlencoded;charset=UTF-8" }
    try {
      return { bytes: bytesOf(body).slice(), type: null }
    } catch {
      return { bytes: utf8Encode(String(body)), type: null, wire: "text/plain;charset=UTF-8" }
    }
  }
  function consume(owner) {
    const state = bodies.get(owner)
    if (state.used) return Promise.reject(new TypeError("Body already used"))
    state.used = true
    return Promise.resolve(state.bytes ?? new Uint8Array(0))
  }
  class Body {
    get bodyUsed() {
      return bodies.get(this).used
    }
    get body() {
      const state = bodies.get(this)
      if (state.bytes === null) return null
      const owner = this
      const read = async () => {
        if (state.used) return { done: true, value: undefined }
        return { done: false, value: await consume(owner) }
      }
      return {
        locked: false,
        getReader: () => ({ read, releaseLock() {}, cancel: async () => void (state.used = true), closed: Promise.resolve() }),
        async *[Symbol.asyncIterator]() {
          if (!state.used) yield await consume(owner)
        },
      }
    }
    text() {
      return consume(this).then((bytes) => utf8Decode(bytes, false, bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0))
    }
    json() {
      return this.text().then((text) => parse(text))
    }
    arrayBuffer() {
      return consume(this).then((bytes) => bytes.slice().buffer)
    }
    bytes() {
      return consume(this).then((bytes) => bytes.slice())
    }
    blob() {
      return Promise.reject(new TypeError("Blob bodies are not available in scripts: use text(), json(), arrayBuffer() or bytes()"))
    }
    formData() {
      return Promise.reject(new TypeError("FormData bodies are not available in scripts: use text(), json(), arrayBuffer() or bytes()"))
    }
  }
  const initBody = (owner, bytes, wire = null) => bodies.set(owner, { bytes, used: false, wire })

  // ── Response ──
  const responses = new WeakMap()
  class Response extends Body {
    constructor(body = null, init = {}) {
      super()
      const status = init.status === undefined ? 200 : Number(init.status)
      if (!(status >= 200 && status <= 599)) throw new RangeError(`The status provided (${init.status}) must be 200 to 599`)
      const { bytes, type } = extract(body)
      const headers = new Headers(init.headers)
      if (type && !headers.has("content-type")) headers.set("content-type", type)
      initBody(this, bytes)
      responses.set(this, { status, statusText: init.statusText === undefined ? "" : String(init.statusText), headers, url: "", redirected: false, type: "default" })
    }
    static json(data, init = {}) {
      const response = new Response(stringify(data), init)
      response.headers.set("content-type", "application/json;charset=utf-8")
      return response
    }
    static error() {
      const response = new Response(null)
      Object.assign(responses.get(response), { status: 0, type: "error" })
      return response
    }
    static redirect(url, status = 302) {
      return new Response(null, { status, headers: { location: new URL(url).href } })
    }
    get status() {
      return responses.get(this).status
    }
    get statusText() {
      return responses.get(this).statusText
    }
    get ok() {
      const { status } = responses.get(this)
      return status >= 200 && status <= 299
    }
    get headers() {
      return responses.get(this).headers
    }
    get url() {
      return responses.get(this).url
    }
    get redirected() {
      return responses.get(this).redirected
    }
    get type() {
      return responses.get(this).type
    }
    clone() {
      if (this.bodyUsed) throw new TypeError("Body already used")
      const state = responses.get(this)
      const copy = new Response(bodies.get(this).bytes?.slice() ?? null, { status: state.status === 0 ? 200 : state.status, statusText: state.statusText, headers: state.headers })
      Object.assign(responses.get(copy), { url: state.url, redirected: state.redirected, type: state.type, status: state.status })
      return copy
    }
  }

  // ── Request ──
  const requests = new WeakMap()
  const METHODS = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"]
  class Request extends Body {
    constructor(input, init = {}) {
      super()
      const from = input instanceof Request ? requests.get(input) : undefined
      const url = from ? from.url : new URL(String(input)).href
      let method = init.method === undefined ? (from ? from.method : "GET") : String(init.method)
      if (METHODS.includes(method.toUpperCase())) method = method.toUpperCase()
      const headers = new Headers(init.headers === undefined ? from?.headers : init.headers)
      let bytes = from ? bodies.get(input).bytes : null
      let wire = from ? bodies.get(input).wire : null
      if (init.body !== undefined && init.body !== null) {
        if (method === "GET" || method === "HEAD") throw new TypeError("Request with a GET or HEAD method cannot have a body.")
        const extracted = extract(init.body)
        bytes = extracted.bytes
        wire = extracted.wire ?? null
        if (extracted.type && !headers.has("content-type")) headers.set("content-type", extracted.type)
      }
      const signal = init.signal === undefined ? from?.signal : init.signal
      if (signal !== undefined && signal !== null && !isSignal(signal)) throw new TypeError("signal must be an AbortSignal")
      initBody(this, bytes, wire)
      requests.set(this, { url, method, headers, signal: signal ?? null, redirect: String(init.redirect ?? from?.redirect ?? "follow") })
    }
    get url() {
      return requests.get(this).url
    }
    get method() {
      return requests.get(this).method
    }
    get headers() {
      return requests.get(this).headers
    }
    get signal() {
      return requests.get(this).signal
    }
    get redirect() {
      return requests.get(this).redirect
    }
    clone() {
      return new Request(this)
    }
  }

  // ── fetch ──
  const inFlight = new Map()
  let nextFetch = 1
  function fetch(input, init = {}) {
    return new Promise((resolve, reject) => {
      const request = new Request(input, init ?? {})
      const { url, method, headers, signal, redirect } = requests.get(request)
      if (signal && signal.aborted) return reject(signal.reason)
      const id = nextFetch++
      const onAbort = () => {
        if (!inFlight.delete(id)) return
        abortOp(id)
        reject(signal.reason)
      }
      inFlight.set(id, { resolve, reject, url, signal, onAbort })
      if (signal) signal.addEventListener("abort", onAbort, { once: true })
      const { bytes, wire } = bodies.get(request)
      const pairs = headerPairs(headers)
      if (wire && !headers.has("content-type")) pairs.push(["content-type", wire])
      fetchOp(id, stringify({ url, method, headers: pairs, redirect }), bytes === null ? undefined : latin1(bytes))
    })
  }
  const pending = {
    settle(id, ok, meta, body) {
      const call = inFlight.get(id)
      if (!call) return
      inFlight.delete(id)
      if (call.signal) call.signal.removeEventListener("abort", call.onAbort)
      if (!ok) return call.reject(new TypeError(meta))
      const { status, statusText, headers, url, redirected } = parse(meta)
      const bytes = new Uint8Array(body.length)
      for (let i = 0; i < body.length; i++) bytes[i] = body.charCodeAt(i)
      const response = new Response(null, { headers })
      initBody(response, status === 204 || status === 304 ? null : bytes)
      Object.assign(responses.get(response), { status, statusText, url, redirected, type: "basic" })
      call.resolve(response)
    },
  }

  void DOMException
  return { globals: { fetch, Headers, Request, Response }, pending }
})
