// Evaluated inside the script's realm: TextEncoder, TextDecoder, atob, btoa and DOMException, and
// the UTF-8 and binary-string helpers the other realm modules share. Encodings other than UTF-8
// are decoded by the worker (`decodeOp`): a binary string in, a JSON string out.
(function (decodeOp) {
  "use strict"
  const { apply, getPrototypeOf } = Reflect
  const { getOwnPropertyDescriptor: describeProperty } = Object
  const { parse } = JSON
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

  return {
    globals: { TextEncoder, TextDecoder, atob, btoa, DOMException },
    DOMException,
    utf8Encode,
    utf8Decode,
    bytesOf,
    latin1,
    isBuffer,
    viewTag,
  }
})
