// The script's globals are written inside its realm (src/sandbox/realm/); they must behave as
// Bun's own do. Each expression runs in a script and, for comparison, in this test's realm with
// Bun's natives: results and console.log output must be the same.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { formatWithOptions } from "node:util"
import { LocalExecutor } from "../../src/executor/local.ts"
import { temporaryDirectory } from "../support/temp.ts"

const dir = temporaryDirectory("clanka-realm-")
let executor: LocalExecutor
let server: ReturnType<typeof Bun.serve>
beforeAll(() => {
  executor = new LocalExecutor({ directory: dir })
  server = Bun.serve({
    port: 0,
    async fetch(request) {
      const body = await request.text()
      return Response.json({ method: request.method, body, type: request.headers.get("content-type"), custom: request.headers.get("x-custom") }, { status: 201, headers: { "x-answer": "42" } })
    },
  })
})
afterAll(async () => {
  await executor.close()
  server.stop(true)
})

async function run(script: string): Promise<string> {
  let output = ""
  try {
    for await (const text of executor.execute({ script, onTaskComplete() {}, onSubagent: async () => "" })) output += text
  } catch (error) {
    output += `[failed] ${(error as Error).message}`
  }
  return output
}

/** Expressions whose value (awaited) is compared as JSON. */
const VALUES = [
  `new URL("https://user:pw@example.com:8080/a/../b?x=1&y=2#h").href`,
  `(() => { const u = new URL("https://user:pw@example.com:8080/p?q=1#h"); return [u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash] })()`,
  `new URL("../c?d", "http://a.test/b/e/f").href`,
  `[URL.canParse("nope"), URL.canParse("/x", "http://a.test"), URL.parse("nope")]`,
  `(() => { const u = new URL("http://a.test/?a=1"); u.searchParams.append("b", "2 3"); u.hash = "x"; u.pathname = "/p q"; return [u.href, u.searchParams.get("a"), String(u)] })()`,
  `(() => { const u = new URL("http://a.test/?a=1"); const p = u.searchParams; u.search = "?z=9"; return [p.get("z"), p.get("a"), JSON.stringify(u)] })()`,
  `new URLSearchParams("?a=1&b=%20x+y&a=3&c&%E2%82%AC=%zz").toString()`,
  `new URLSearchParams({ q: "a b&c", "é": "~!'()*-._" }).toString()`,
  `(() => { const p = new URLSearchParams([["b", "2"], ["a", "1"], ["b", "3"]]); p.sort(); p.delete("a"); p.set("c", "4"); return [[...p], p.getAll("b"), p.has("b", "3"), p.size] })()`,
  `(() => { const seen = []; new URLSearchParams("a=1&b=2").forEach(function (v, k) { seen.push(k + v, this.tag) }, { tag: "t" }); new Headers({ x: "1" }).forEach((v, k) => seen.push(k + v)); return seen })()`,
  `Array.from(new TextEncoder().encode("héllo 😀 \\ud800"))`,
  `(() => { const d = new Uint8Array(5); return [new TextEncoder().encodeInto("h€y", d), Array.from(d)] })()`,
  `new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0xff, 0xe2, 0x82, 0x41, 0xf0, 0x9f, 0x98, 0x80]))`,
  `(() => { const d = new TextDecoder(); return d.decode(new Uint8Array([0xe2, 0x82]), { stream: true }) + d.decode(new Uint8Array([0xac])) })()`,
  `[new TextDecoder("utf-16le").decode(new Uint8Array([104, 0, 105, 0])), new TextDecoder("latin1").encoding, new TextDecoder().encoding]`,
  `[btoa("hello\\xff"), atob(" aGVs bG8= "), atob("YQ"), btoa("")]`,
  `[() => atob("*"), () => btoa("😀"), () => new TextDecoder("no-such"), () => new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xff])), () => new URL("::")].map((f) => { try { f(); return "no error" } catch (e) { return e.name } })`,
  `(() => { const o = { m: new Map([[1, new Set([2])]]), d: new Date(5), r: /x/gi, a: [1, , 3], u: new Uint16Array([1, 2]) }; o.self = o; const c = structuredClone(o); return [c !== o, c.self === c, c.m.get(1).has(2), c.d.getTime(), String(c.r), c.a.length, 1 in c.a, Array.from(c.u), c.u instanceof Uint16Array] })()`,
  `(() => { try { structuredClone({ f() {} }) } catch (e) { return [e.name, e instanceof DOMException] } })()`,
  `(() => { const h = new Headers({ B: "2", a: " 1 ", "Set-Cookie": "x=1" }); h.append("b", "3"); h.append("set-cookie", "y=2"); return [[...h], h.get("B"), h.has("c"), h.getSetCookie()] })()`,
  `(() => { try { new Headers({ "a b": "x" }) } catch (e) { return e.name } })()`,
  `(async () => { const r = new Response('{"a":1}', { status: 201, statusText: "Made", headers: { x: "y" } }); return [r.status, r.statusText, r.ok, r.headers.get("x"), r.headers.get("content-type"), r.bodyUsed, await r.json(), r.bodyUsed] })()`,
  `(async () => { const r = Response.json({ a: [1] }); return [r.headers.get("content-type"), await r.text()] })()`,
  `(async () => { const r = new Response(new Uint8Array([104, 105])); return [await r.clone().text(), Array.from(new Uint8Array(await r.arrayBuffer()))] })()`,
  `(async () => { const q = new Request("http://a.test/x", { method: "post", body: "hi", headers: { "x-a": "1" } }); return [q.method, q.url, q.headers.get("content-type"), await q.text()] })()`,
  `(async () => { try { await new Response("{").json(); return "parsed" } catch (e) { return e.name } })()`,
  `(() => { const c = new AbortController(); const seen = []; c.signal.addEventListener("abort", (e) => seen.push(e.type)); c.signal.onabort = () => seen.push("on"); c.abort("why"); c.abort("again"); return [c.signal.aborted, c.signal.reason, seen, AbortSignal.abort().reason.name] })()`,
  `(async () => { const s = AbortSignal.timeout(5); await new Promise((r) => setTimeout(r, 30)); return [s.aborted, s.reason.name] })()`,
  `(async () => { const r = await fetch("http://127.0.0.1:PORT/echo", { method: "POST", body: new URLSearchParams({ a: "1 2" }), headers: { "X-Custom": "yes" } }); return [r.status, r.ok, r.headers.get("x-answer"), r.url, await r.json()] })()`,
  `(async () => { try { await fetch("http://127.0.0.1:1/"); return "connected" } catch (e) { return e.name } })()`,
  `(async () => { const c = new AbortController(); const p = fetch("http://127.0.0.1:PORT/", { signal: c.signal }); c.abort(); try { await p; return "done" } catch (e) { return e.name } })()`,
  `(() => { const t = setTimeout(() => {}, 1000); clearTimeout(t); return [typeof t.ref, typeof t.unref, t.hasRef(), typeof +t] })()`,
]

/** Values whose console.log output is compared with Node's inspect of the same value. */
const LOGGED = [
  `{ a: 1, b: [1, 2, { c: { d: { e: 1 } } }], s: "it's" }`,
  `new Map([[1, { a: 1 }], ["k", [1, 2]]])`,
  `new Set([1, "x", { y: 2 }])`,
  `[1, , 3, undefined, null]`,
  `Object.assign(Object.create(null), { a: 1 })`,
  `new (class Point { constructor() { this.x = 1; this.y = 2 } })()`,
  `[function foo() {}, async () => {}, class Bar {}, class Baz extends Array {}, function* gen() {}]`,
  `[Symbol("s"), 10n, -0, NaN, Infinity, true]`,
  `[new Date(0), /x\\/y/gi, new Uint8Array([1, 2, 3]), new ArrayBuffer(3)]`,
  `{ get x() { return 1 }, set y(v) {}, get z() { return 1 }, set z(v) {} }`,
  `new Array(150).fill(7)`,
  `{ [Symbol("k")]: 1, "needs quotes": 2, valid_id: 3 }`,
  `[new Boolean(true), new Number(3), new String("ab")]`,
  `[new WeakMap(), new WeakSet()]`,
  `Promise.resolve(4)`,
  `{ long: "x".repeat(60), other: "y".repeat(30), more: [1, 2, 3] }`,
  `(() => { const o = { name: "loop" }; o.self = o; o.list = [o]; return o })()`,
  `Array.from({ length: 30 }, (_, i) => i * 1000)`,
  `new Map(Array.from({ length: 120 }, (_, i) => [i, i]))`,
  `{ a: { b: { c: { d: {} } } }, e: { f: { g: [] } } }`,
  `{ [Symbol.for("nodejs.util.inspect.custom")]() { return "custom!" } }`,
  `"plain string"`,
  `(() => { const e = new TypeError("bad", { cause: "root" }); e.stack = "TypeError: bad\\n    at somewhere"; e.code = "E_X"; return { e } })()`,
  `(() => { const e = new AggregateError([new RangeError("inner")], "all failed"); e.stack = undefined; e.errors[0].stack = "RangeError: inner"; return e })()`,
]

/** console.log argument lists, as written in the script. */
const FORMATS = [
  `"%s is %d years and %i days, %f%%", "Bob", 42.5, 3.9, "1.5"`,
  `"%j and %o", { a: [1] }, [1]`,
  `"%s", { toString() { return "custom toString" } }`,
  `"%s|%s|%s", 1n, Symbol("q"), { a: 1 }`,
  `"%c styled", "color: red", "rest", 1`,
  `"no args %s"`,
  `1, "two", { three: 3 }`,
]

describe("the realm's web APIs behave as Bun's", () => {
  for (const expression of VALUES) {
    test(expression.slice(0, 100), async () => {
      const source = expression.replaceAll("PORT", String(server.port))
      const output = await run(`console.log(JSON.stringify(await ${source}))`)
      const expected = JSON.stringify(await new Function(`return ${source}`)())
      expect(output).toBe(`${expected}\n`)
    })
  }
})

describe("console.log formats like Node", () => {
  for (const expression of LOGGED) {
    test(expression.slice(0, 100), async () => {
      const output = await run(`console.log(${expression})`)
      expect(output).toBe(formatWithOptions({ colors: false }, new Function(`return ${expression}`)()) + "\n")
    })
  }
  for (const args of FORMATS) {
    test(`console.log(${args.slice(0, 80)})`, async () => {
      const output = await run(`console.log(${args})`)
      expect(output).toBe(formatWithOptions({ colors: false }, ...new Function(`return [${args}]`)()) + "\n")
    })
  }
})
