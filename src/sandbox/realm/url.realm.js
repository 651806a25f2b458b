// Evaluated inside the script's realm: URL and URLSearchParams. Parsing and setting a part ask the
// worker (`urlOp`), with strings in and a JSON string of the parts out.
(function (urlOp, encoding) {
  "use strict"
  const { apply, ownKeys } = Reflect
  const { getOwnPropertyDescriptor: describeProperty } = Object
  const { parse } = JSON
  const fromCharCode = String.fromCharCode
  const { utf8Encode, utf8Decode } = encoding

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

  return { globals: { URL, URLSearchParams }, URL, URLSearchParams }
})
