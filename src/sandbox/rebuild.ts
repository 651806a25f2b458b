// console.log's arguments arrive from the script's realm as an inert description (see
// realm/inspect.realm.js). Here they are rebuilt as look-alike objects of this thread and
// formatted by Node's own inspect, so the output reads as Node's would, while no object of the
// script's is ever handed to inspect (whose hooks would receive this realm's objects).
import { nodeUtil } from "./node-util.ts"

type Node =
  | ["s", string]
  | ["n", number | string]
  | ["b", boolean]
  | ["u"]
  | ["l"]
  | ["i", string]
  | ["y", string | null]
  | ["r", number]
  | ["o", number, Info]

type Property = [Node, Node] | [Node, null, boolean, boolean]

interface Info {
  k: string
  c?: string | null
  t?: string
  p?: Property[]
  [key: string]: unknown
}

const ERRORS: Record<string, ErrorConstructor> = {
  Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError,
  AggregateError: AggregateError as unknown as ErrorConstructor,
}
const TYPED: Record<string, new (length: number) => { [index: number]: unknown }> = {
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array,
}

/**
 * Formats a described argument list the way console.log formats its arguments; with `specifier`,
 * one value the way console.log's `%o` or `%O` shows it.
 */
export function formatDescribed(json: string, specifier?: "o" | "O"): string {
  const nodes = JSON.parse(json) as Node[]
  const objects = new Map<number, unknown>()
  const values = nodes.map((node) => rebuild(node, objects))
  const { formatWithOptions, inspect } = nodeUtil()
  if (specifier === "o") return inspect(values[0], { showHidden: true, showProxy: true, depth: 2 })
  if (specifier === "O") return inspect(values[0])
  return formatWithOptions({ colors: false }, ...values)
}

/** A prototype whose constructor has `name` (and the given toStringTag), for inspect to name. */
function prototypeNamed(name: string | null | undefined, tag: string | undefined, base: object | null): object | null {
  if (name === null) return null
  const named = { [name ?? "Object"]: function () {} }[name ?? "Object"]!
  const proto = Object.create(base)
  Object.defineProperty(proto, "constructor", { value: named, configurable: true, writable: true })
  named.prototype = proto
  if (tag) Object.defineProperty(proto, Symbol.toStringTag, { value: tag, configurable: true })
  return proto
}

function shaped<T extends object>(value: T, info: Info, base: object, plain: string): T {
  if (info.c !== plain || info.t) Object.setPrototypeOf(value, prototypeNamed(info.c, info.t, base))
  return value
}

function key(node: Node): string | symbol {
  return node[0] === "y" ? Symbol(node[1] ?? undefined) : String(node[1])
}

function rebuild(node: Node, objects: Map<number, unknown>): unknown {
  switch (node[0]) {
    case "s":
    case "b":
      return node[1]
    case "n":
      return typeof node[1] === "number" ? node[1] : node[1] === "-0" ? -0 : Number(node[1])
    case "u":
      return undefined
    case "l":
      return null
    case "i":
      return BigInt(node[1])
    case "y":
      return Symbol(node[1] ?? undefined)
    case "r":
      return objects.get(node[1])
    case "o":
      return object(node[1], node[2], objects)
  }
}

function object(id: number, info: Info, objects: Map<number, unknown>): unknown {
  const child = (node: Node) => rebuild(node, objects)
  let value: any
  switch (info.k) {
    case "custom": {
      const text = info.text as string
      value = { [nodeUtil().inspect.custom]: () => text }
      objects.set(id, value)
      return value
    }
    case "value":
      value = child(info.v as Node)
      objects.set(id, value)
      return value
    case "function": {
      const name = info.name as string
      const kinds: Record<string, () => unknown> = {
        class: () => ({ [name]: class {} })[name],
        async: () => ({ [name]: async function () {} })[name],
        generator: () => ({ [name]: function* () {} })[name],
        asyncgenerator: () => ({ [name]: async function* () {} })[name],
        function: () => ({ [name]: function () {} })[name],
      }
      value = (kinds[info.fk as string] ?? kinds.function!)()
      if (info.ext) Object.setPrototypeOf(value, { [info.ext as string]: class {} }[info.ext as string]!)
      break
    }
    case "array":
      value = shaped(new Array(info.len as number), info, Array.prototype, "Array")
      objects.set(id, value)
      for (const [index, item] of info.items as [number, Node][]) value[index] = child(item)
      break
    case "map":
      value = shaped(new Map(), info, Map.prototype, "Map")
      objects.set(id, value)
      for (const [k, v] of info.e as [Node, Node][]) value.set(child(k), child(v))
      // Entries past the first hundred only count: inspect shows "… more items".
      for (let n = value.size; n < (info.size as number); n++) value.set(Symbol(), undefined)
      break
    case "set":
      value = shaped(new Set(), info, Set.prototype, "Set")
      objects.set(id, value)
      for (const v of info.e as Node[]) value.add(child(v))
      for (let n = value.size; n < (info.size as number); n++) value.add(Symbol())
      break
    case "weakmap":
      value = new WeakMap()
      break
    case "weakset":
      value = new WeakSet()
      break
    case "date":
      value = shaped(new Date(info.time === null ? NaN : (info.time as number)), info, Date.prototype, "Date")
      break
    case "regexp":
      value = shaped(new RegExp(info.source as string, info.flags as string), info, RegExp.prototype, "RegExp")
      break
    case "boxed":
      value = Object(rebuild(info.v as Node, objects))
      break
    case "typed": {
      const Typed = TYPED[info.type as string] ?? Uint8Array
      value = new Typed(info.len as number)
      ;(info.items as (number | string)[]).forEach((item, i) => (value[i] = typeof item === "string" ? BigInt(item) : item))
      break
    }
    case "buffer": {
      value = info.type === "SharedArrayBuffer" ? new SharedArrayBuffer(info.len as number) : new ArrayBuffer(info.len as number)
      new Uint8Array(value).set(info.items as number[])
      break
    }
    case "promise": {
      objects.set(id, undefined)
      const state = info.state as string
      const result = child(info.v as Node)
      if (state === "pending") value = new Promise(() => {})
      else if (state === "rejected") {
        value = Promise.reject(result)
        value.catch(() => {})
      } else value = typeof result === "object" && result !== null && "then" in result ? new Promise(() => {}) : Promise.resolve(result)
      break
    }
    case "error": {
      const Ctor = ERRORS[(info.known as string) ?? ""] ?? Error
      const proto = info.known ? Ctor.prototype : prototypeNamed(info.c, info.t, Ctor.prototype)
      value = Object.create(proto)
      objects.set(id, value)
      Object.defineProperty(value, "message", { value: info.message, writable: true, configurable: true })
      // Without a stack (AggregateError from Promise.any) inspect shows `[Name: message]`, as Node.
      if (info.stack !== undefined) Object.defineProperty(value, "stack", { value: info.stack, writable: true, configurable: true })
      if (info.name !== undefined && info.name !== Ctor.prototype.name) Object.defineProperty(value, "name", { value: info.name, writable: true, configurable: true })
      if (info.cause) Object.defineProperty(value, "cause", { value: child(info.cause as Node), writable: true, configurable: true })
      if (info.errors) Object.defineProperty(value, "errors", { value: child(info.errors as Node), writable: true, configurable: true })
      break
    }
    default:
      value = info.c === null ? Object.create(null) : info.c === "Object" && !info.t ? {} : Object.create(prototypeNamed(info.c, info.t, Object.prototype))
  }
  objects.set(id, value)
  for (const property of info.p ?? []) {
    const name = key(property[0])
    if (property[1] === null) {
      const [, , get, set] = property as [Node, null, boolean, boolean]
      Object.defineProperty(value, name, { get: get ? () => undefined : undefined, set: set ? () => {} : undefined, enumerable: true, configurable: true })
    } else Object.defineProperty(value, name, { value: child(property[1]), enumerable: true, writable: true, configurable: true })
  }
  return value
}
