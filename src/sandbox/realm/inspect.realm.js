// Evaluated inside the script's realm. Turns console.log's arguments into an inert description
// (plain data, sent across as JSON) that the worker rebuilds and formats with Node's own inspect:
// no script object ever reaches host code, so no getter, trap or inspect hook runs with a host
// object in reach. `peek` reads a promise's state natively without running script code.
(function (peek, peekStatus, formatHost) {
  "use strict"
  const { apply, ownKeys, getPrototypeOf } = Reflect
  const { getOwnPropertyDescriptor: describeProperty, is } = Object
  const isArray = Array.isArray
  const stringify = JSON.stringify
  const fnToString = Function.prototype.toString
  const getter = (proto, key) => describeProperty(proto, key).get
  const mapSize = getter(Map.prototype, "size")
  const setSize = getter(Set.prototype, "size")
  const mapForEach = Map.prototype.forEach
  const setForEach = Set.prototype.forEach
  const weakMapHas = WeakMap.prototype.has
  const weakSetHas = WeakSet.prototype.has
  const dateTime = Date.prototype.getTime
  const regexpSource = getter(RegExp.prototype, "source")
  const regexpFlags = getter(RegExp.prototype, "flags")
  const typedTag = getter(getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)
  const typedLength = getter(getPrototypeOf(Uint8Array.prototype), "length")
  const bufferLength = getter(ArrayBuffer.prototype, "byteLength")
  const sharedLength = getter(SharedArrayBuffer.prototype, "byteLength")
  const boxes = [
    ["Number", Number.prototype.valueOf],
    ["String", String.prototype.valueOf],
    ["Boolean", Boolean.prototype.valueOf],
    ["Symbol", Symbol.prototype.valueOf],
    ["BigInt", BigInt.prototype.valueOf],
  ]
  const AsyncFunction = (async () => {}).constructor
  const GeneratorFunction = function* () {}.constructor
  const AsyncGeneratorFunction = async function* () {}.constructor
  const CUSTOM = Symbol.for("nodejs.util.inspect.custom")
  const ERROR_NAMES = ["Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "AggregateError"]
  /** Levels described in full; deeper objects only say what they are (Node's depth is 2). */
  const DEPTH = 3
  const MAX_ITEMS = 101

  const tryCall = (fn, self) => {
    try {
      return { ok: true, value: apply(fn, self, []) }
    } catch {
      return { ok: false }
    }
  }

  function primitive(value) {
    switch (typeof value) {
      case "string":
        return ["s", value]
      case "number":
        return ["n", value !== value || value === Infinity || value === -Infinity || is(value, -0) ? String(is(value, -0) ? "-0" : value) : value]
      case "boolean":
        return ["b", value]
      case "undefined":
        return ["u"]
      case "bigint":
        return ["i", String(value)]
      case "symbol":
        return ["y", value.description === undefined ? null : value.description]
    }
    return value === null ? ["l"] : undefined
  }

  function constructorName(value) {
    let proto = value
    for (let i = 0; i < 20; i++) {
      try {
        proto = getPrototypeOf(proto)
      } catch {
        return "Object"
      }
      if (proto === null) return i === 0 ? null : "Object"
      let property
      try {
        property = describeProperty(proto, "constructor")
      } catch {}
      const ctor = property && property.value
      if (typeof ctor === "function" && typeof ctor.name === "string" && ctor.name !== "") return ctor.name
    }
    return "Object"
  }

  /** Describes many values sharing one table of objects, so cycles and repeats stay references. */
  function describer() {
    const ids = new Map()
    let nextId = 1

    function describe(value, depth) {
      const simple = primitive(value)
      if (simple) return simple
      const known = ids.get(value)
      if (known !== undefined) return ["r", known]
      const id = nextId++
      ids.set(value, id)
      let info
      try {
        info = object(value, depth)
      } catch {
        info = { k: "object", c: "Object", p: [] }
      }
      return ["o", id, info]
    }

    function properties(value, depth, skipIndices) {
      const shallow = depth >= DEPTH
      const out = []
      let keys
      try {
        keys = ownKeys(value)
      } catch {
        return out
      }
      for (const key of keys) {
        if (skipIndices && typeof key === "string" && key !== "" && String(key >>> 0) === key) continue
        let property
        try {
          property = describeProperty(value, key)
        } catch {
          continue
        }
        if (!property || !property.enumerable) continue
        // Past the depth Node prints `[Object]` for a non-empty object: one key says so.
        if (shallow) return [[["s", "_"], ["u"]]]
        const keyNode = typeof key === "symbol" ? ["y", key.description === undefined ? null : key.description] : ["s", key]
        if ("value" in property) out.push([keyNode, describe(property.value, depth + 1)])
        else out.push([keyNode, null, property.get !== undefined, property.set !== undefined])
      }
      return out
    }

    function custom(value, depth) {
      let hook
      try {
        hook = value[CUSTOM]
      } catch {}
      if (typeof hook !== "function") return undefined
      const options = {
        depth: 2 - depth,
        colors: false,
        compact: 3,
        breakLength: 80,
        showHidden: false,
        customInspect: true,
        stylize: (text) => String(text),
      }
      const inspect = (inner) => formatHost(stringify([describer().describe(inner, 0)]))
      const result = apply(hook, value, [2 - depth, options, inspect])
      if (result === value) return undefined
      if (typeof result === "string") return { k: "custom", text: result }
      return { k: "value", v: describe(result, depth) }
    }

    function object(value, depth) {
      const replaced = custom(value, depth)
      if (replaced) return replaced
      const c = constructorName(value)
      let tag
      let rawTag
      try {
        rawTag = value[Symbol.toStringTag]
        if (typeof rawTag === "string" && rawTag !== "" && rawTag !== c) tag = rawTag
      } catch {}
      const base = { c, t: tag }
      if (typeof value === "function") {
        let source = ""
        try {
          source = apply(fnToString, value, [])
        } catch {}
        let name = ""
        try {
          const own = describeProperty(value, "name")
          if (own && typeof own.value === "string") name = own.value
        } catch {}
        let fk = "function"
        if (source.startsWith("class")) fk = "class"
        else if (value instanceof AsyncFunction) fk = "async"
        else if (value instanceof GeneratorFunction) fk = "generator"
        else if (value instanceof AsyncGeneratorFunction) fk = "asyncgenerator"
        let ext
        if (fk === "class") {
          try {
            const parent = getPrototypeOf(value)
            if (typeof parent === "function" && parent.name) ext = parent.name
          } catch {}
        }
        return { ...base, k: "function", fk, name, ext, p: properties(value, depth) }
      }
      if (isArray(value)) {
        const length = value.length
        const items = []
        const shallow = depth >= DEPTH
        for (let i = 0; i < length && i < (shallow ? 1 : MAX_ITEMS); i++) {
          const property = describeProperty(value, i)
          if (!property) continue
          items.push([i, shallow ? ["u"] : "value" in property ? describe(property.value, depth + 1) : ["u"]])
        }
        return { ...base, k: "array", len: length, items, p: length > 10000 ? [] : properties(value, depth, true) }
      }
      const size = tryCall(mapSize, value)
      if (size.ok) {
        const entries = []
        if (depth < DEPTH) apply(mapForEach, value, [(v, k) => entries.length < MAX_ITEMS && entries.push([describe(k, depth + 1), describe(v, depth + 1)])])
        return { ...base, k: "map", size: size.value, e: entries, p: properties(value, depth) }
      }
      const setCount = tryCall(setSize, value)
      if (setCount.ok) {
        const entries = []
        if (depth < DEPTH) apply(setForEach, value, [(v) => entries.length < MAX_ITEMS && entries.push(describe(v, depth + 1))])
        return { ...base, k: "set", size: setCount.value, e: entries, p: properties(value, depth) }
      }
      if (tryCall(weakMapHas, value).ok) return { ...base, k: "weakmap", p: properties(value, depth) }
      if (tryCall(weakSetHas, value).ok) return { ...base, k: "weakset", p: properties(value, depth) }
      const time = tryCall(dateTime, value)
      if (time.ok) return { ...base, k: "date", time: time.value === time.value ? time.value : null, p: properties(value, depth) }
      const source = tryCall(regexpSource, value)
      if (source.ok && value !== RegExp.prototype) return { ...base, k: "regexp", source: source.value, flags: apply(regexpFlags, value, []), p: properties(value, depth) }
      const typed = tryCall(typedTag, value)
      if (typed.ok && typeof typed.value === "string") {
        const length = apply(typedLength, value, [])
        const items = []
        for (let i = 0; i < length && i < MAX_ITEMS; i++) items.push(typeof value[i] === "bigint" ? String(value[i]) : value[i])
        return { ...base, k: "typed", type: typed.value, len: length, items, p: [] }
      }
      for (const [type, read] of [["ArrayBuffer", bufferLength], ["SharedArrayBuffer", sharedLength]]) {
        const byteLength = tryCall(read, value)
        if (byteLength.ok) {
          const view = new Uint8Array(value, 0, Math.min(byteLength.value, MAX_ITEMS))
          return { ...base, k: "buffer", type, len: byteLength.value, items: [...view], p: properties(value, depth) }
        }
      }
      for (const [type, valueOf] of boxes) {
        const boxed = tryCall(valueOf, value)
        if (boxed.ok) return { ...base, k: "boxed", type, v: primitive(boxed.value), p: properties(value, depth, type === "String") }
      }
      if (value instanceof Promise || rawTag === "Promise") {
        const status = peekStatus(value)
        const result = status === "pending" ? ["u"] : describe(peek(value), depth + 1)
        return { ...base, k: "promise", state: status, v: result, p: properties(value, depth) }
      }
      if (value instanceof Error || (typeof c === "string" && c.endsWith("Error") && "message" in value)) {
        const text = (key) => {
          try {
            const v = value[key]
            return v === undefined ? undefined : String(v)
          } catch {
            return undefined
          }
        }
        let cause
        try {
          const own = describeProperty(value, "cause")
          if (own && "value" in own && own.value !== undefined) cause = describe(own.value, depth + 1)
        } catch {}
        let errors
        try {
          const own = describeProperty(value, "errors")
          if (own && "value" in own && isArray(own.value) && !own.enumerable) errors = describe(own.value, depth + 1)
        } catch {}
        const name = text("name")
        const known = ERROR_NAMES.includes(c) ? c : undefined
        return { ...base, k: "error", name, message: text("message") ?? "", stack: text("stack"), known, cause, errors, p: properties(value, depth) }
      }
      return { ...base, k: "object", p: properties(value, depth) }
    }

    return { describe }
  }

  /** The description of console.log's arguments, as JSON. */
  return function describeArguments(args) {
    const { describe } = describer()
    const nodes = []
    for (let i = 0; i < args.length; i++) nodes.push(describe(args[i], 0))
    return stringify(nodes)
  }
})
