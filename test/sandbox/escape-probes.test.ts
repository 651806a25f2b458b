// The script's realm, attacked: every probe is a hostile script run in-process (no OS sandbox, as
// library users and `--sandbox off` run them) that tries one route out of its vm realm to the
// executor's `process`, `Bun`, `require`, its Function or `import()`. Each probe hands everything
// the route yields to `check`, which walks constructor and prototype chains and calls any
// Function constructor it meets; no probe may find the host or print the key.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { LocalExecutor } from "../../src/executor/local.ts"
import { clanka } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

const SECRET = "sk-probe-secret-7f3a"
const dir = temporaryDirectory("clanka-escape-")
writeFileSync(join(dir, "README.md"), "hello\n")
let executor: LocalExecutor
let server: ReturnType<typeof Bun.serve>
let saved: string | undefined

beforeAll(() => {
  saved = process.env.ANTHROPIC_API_KEY
  process.env.ANTHROPIC_API_KEY = SECRET
  executor = new LocalExecutor({ directory: dir })
  server = Bun.serve({ port: 0, fetch: () => new Response('{"a":1}', { headers: { "x-probe": "1" } }) })
})
afterAll(async () => {
  if (saved === undefined) delete process.env.ANTHROPIC_API_KEY
  else process.env.ANTHROPIC_API_KEY = saved
  await executor.close()
  server.stop(true)
})

/**
 * Prepended to every probe. `check(label, ...values)` follows each value's constructor and
 * prototype chains (and a few properties a host object would have); a Function constructor that is
 * not one of this realm's own is a leak, and any is called to look for `process`/`Bun`/`require`.
 */
const PRELUDE = String.raw`
const OWN = new Set([Function, (async () => {}).constructor, function* () {}.constructor, async function* () {}.constructor])
const LOOK = 'return (typeof process !== "undefined" ? "HOST process " + (process.env && process.env.ANTHROPIC_API_KEY) : "") + (typeof Bun !== "undefined" ? "HOST Bun " + Bun.env.ANTHROPIC_API_KEY : "") + (typeof require !== "undefined" ? "HOST require" : "")'
const leaks = []
let checked = 0
function check(label, ...values) {
  const seen = new Set()
  const visit = (x, path, depth) => {
    if (x === null || (typeof x !== "object" && typeof x !== "function") || seen.has(x) || depth > 6) return
    seen.add(x)
    checked++
    try {
      if (typeof x === "function" && /Function$/.test(x.name)) {
        if (!OWN.has(x)) leaks.push("FOREIGN " + label + path)
        const found = x(LOOK)
        const text = typeof found === "function" ? found() : found
        if (typeof text === "string" && text) leaks.push(label + path + ": " + text)
      }
    } catch {}
    try { if ("env" in x && x.env && typeof x.env === "object") leaks.push("HOST env " + label + path + " " + x.env.ANTHROPIC_API_KEY) } catch {}
    try { if (typeof x.binding === "function" || typeof x.dlopen === "function" || typeof x.spawn === "function") leaks.push("HOST api " + label + path) } catch {}
    for (const key of ["constructor", "__proto__", "caller", "callee", "prototype"]) {
      try { visit(x[key], path + "." + key, depth + 1) } catch {}
    }
    try { visit(Object.getPrototypeOf(x), path + "^", depth + 1) } catch {}
    try { visit(Reflect.getPrototypeOf(x).constructor, path + "^.constructor", depth + 1) } catch {}
  }
  values.forEach((value, i) => visit(value, "[" + i + "]", 0))
}
function report() {
  console.log(leaks.length ? "LEAKS " + leaks.join("; ") : "no leak")
  console.log("checked " + checked)
}
`

/** name → probe body; each ends by calling report(). */
const PROBES: Record<string, string> = {
  "the global's constructor chain": `check("global", globalThis, globalThis.constructor, globalThis.constructor.constructor); report()`,
  "the global's prototype walk": `let p = globalThis; while (p) { check("proto", p); p = Object.getPrototypeOf(p) } check("__proto__", globalThis.__proto__, Reflect.getPrototypeOf(globalThis)); report()`,
  "every global value": `for (const key of Reflect.ownKeys(globalThis)) { try { check(String(key), globalThis[key]) } catch {} } report()`,
  "every global's prototype and methods": `for (const key of Reflect.ownKeys(globalThis)) { let v; try { v = globalThis[key] } catch { continue } if (typeof v !== "function" && (typeof v !== "object" || v === null)) continue
    for (const holder of [v, v.prototype]) { if (!holder) continue; for (const k of Reflect.ownKeys(holder)) { try { const d = Object.getOwnPropertyDescriptor(holder, k); check(String(key) + "." + String(k), d.value, d.get, d.set) } catch {} } } } report()`,
  "hidden bridge names on the global": `const names = Reflect.ownKeys(globalThis).map(String); const odd = names.filter((n) => n !== "hosts" /* the hosts() tool */ && /host|bridge|native|internal|__/i.test(n)); console.log("odd globals: " + JSON.stringify(odd)); check("names", ...names.map((n) => globalThis[n])); report()`,
  "console methods": `for (const k of Reflect.ownKeys(console)) check("console." + String(k), console[k]); check("console", console); report()`,
  "instances of the web APIs": `const u = new URL("http://a.test/p?q=1"); const s = new URLSearchParams("a=1"); const h = new Headers({ a: "1" }); const r = new Response("x"); const q = new Request("http://a.test/");
    const c = new AbortController(); check("web", u, u.searchParams, s, h, r, r.headers, q, q.headers, c, c.signal, new TextEncoder(), new TextEncoder().encode("x"), new TextDecoder(), structuredClone({ a: [1] }), atob("eA=="), btoa("x"), [...s], [...h], s.entries(), h.entries()); report()`,
  "web API promises and their results": `const r = new Response('{"a":1}'); const p = r.json(); check("json()", p, await p); const t = new Response("x").text(); check("text()", t, await t); const b = new Response("x").arrayBuffer(); check("arrayBuffer()", b, await b); report()`,
  "errors thrown by the web APIs": `for (const attempt of [() => new URL("::"), () => atob("*"), () => new Headers({ "a b": "x" }), () => new TextDecoder("no-such"), () => structuredClone(() => {}), () => new Response("x", { status: 9 })]) { try { attempt() } catch (error) { check("web error", error, error.stack) } }
    await new Response("{").json().catch((error) => check("json error", error)); report()`,
  "a tool's returned promise": `const p = readFile({ path: "README.md" }); check("import promise", import("node:fs").catch(() => {})); check("promise", p, p.constructor, p.then, p.then(() => {}), p.catch(() => {}), p.finally(() => {})); check("value", await p); report()`,
  "values tools return: strings, arrays, objects": `check("string", await readFile({ path: "README.md" })); check("array", await ls("."), (await ls("."))[0]); check("object", await bash({ command: "echo hi" })); check("todos", await addTodo("x"), await listTodos()); report()`,
  "an error a tool rejects with": `try { await bash({ command: "exit 3" }) } catch (error) { check("tool error", error, error.stack, error.cause, Object.getOwnPropertyDescriptors(error)) } report()`,
  "an error for parameters that are not JSON": `const loop = {}; loop.self = loop; try { await readFile(loop) } catch (error) { check("json error", error) } try { await readFile({ n: 1n }) } catch (error) { check("bigint error", error) } report()`,
  "getters on parameters passed to a tool": `const seen = []; const params = { get path() { seen.push(this, ...arguments, (function () { return this })()); return "README.md" } }; check("getter", await readFile(params)); check("getter args", ...seen); report()`,
  "toJSON on parameters passed to a tool": `const seen = []; await readFile({ toJSON(key) { seen.push(this, key, ...arguments); return { path: "README.md" } } }); check("toJSON", ...seen); report()`,
  "a Proxy passed to a tool": `const seen = []; const handler = new Proxy({}, { get: (_, trap) => (...args) => { seen.push(...args); return Reflect[trap](...args) } }); await readFile(new Proxy({ path: "README.md" }, handler)).catch(() => {}); check("traps", ...seen); report()`,
  "a Proxy passed to console.log": `const seen = []; const handler = new Proxy({}, { get: (_, trap) => (...args) => { seen.push(...args); return Reflect[trap](...args) } }); console.log(new Proxy({ a: 1 }, handler)); console.log(new Proxy([1, 2], handler)); console.log(new Proxy(function f() {}, handler)); check("traps", ...seen); report()`,
  "nodejs.util.inspect.custom with console.log": `const seen = []; const custom = Symbol.for("nodejs.util.inspect.custom");
    console.log({ [custom](depth, options, inspect) { seen.push(this, depth, options, inspect, ...arguments); try { seen.push(options.stylize, options.stylize("x", "special"), inspect({ a: 1 }, options)) } catch {} return "custom" } });
    check("custom", ...seen, ...seen.flatMap((v) => { try { return Object.values(v) } catch { return [] } })); report()`,
  "getters and Symbol.toStringTag on objects console.log shows": `const seen = []; const o = { get a() { seen.push(this, ...arguments); return 1 }, get [Symbol.toStringTag]() { seen.push(this, ...arguments); return "T" } }; console.log(o); console.log("%s %d %i %f %j %o %O", o, o, o, o, o, o, o); console.log(String(o)); check("getters", ...seen); report()`,
  "toString/valueOf/toPrimitive hooks in console.log formats": `const seen = []; const o = { toString() { seen.push(this, ...arguments); return "s" }, valueOf() { seen.push(this, ...arguments); return 1 }, [Symbol.toPrimitive](hint) { seen.push(this, ...arguments); return 2 } }; console.log("%s|%d|%i|%f|%c", o, o, o, o, o); check("hooks", ...seen); report()`,
  "console.log of classes, errors, maps, promises and functions": `class A { constructor() { this.x = 1 } } const e = new Error("boom", { cause: new TypeError("c") }); console.log(new A(), A, e.message, new Map([[1, { a: 1 }]]), new Set([1]), Promise.resolve(1), () => 1, new WeakMap(), Symbol("s"), 1n, [, 1]); check("logged", A, e); report()`,
  "a Proxy given to structuredClone": `const seen = []; const handler = new Proxy({}, { get: (_, trap) => (...args) => { seen.push(...args); return Reflect[trap](...args) } }); try { check("clone", structuredClone(new Proxy({ a: { b: 1 } }, handler))) } catch (error) { check("clone error", error) } check("traps", ...seen); report()`,
  "getters on an object given to structuredClone": `const seen = []; const copy = structuredClone({ get a() { seen.push(this, ...arguments); return new Map([[1, new Date(0)]]) }, b: [new Uint8Array(2)], c: /x/g }); check("clone", copy, copy.a, copy.b, copy.c, ...seen); report()`,
  "a thenable returned from the script": `const seen = []; const then = Promise.prototype.then; Promise.prototype.then = function (...args) { seen.push(this, ...args); return then.apply(this, args) }; return { then(resolve, reject) { seen.push(resolve, reject); Promise.prototype.then = then; check("then", ...seen); report(); resolve(1) } }`,
  "Promise.prototype.then replaced before tool calls resolve": `const seen = []; const then = Promise.prototype.then; Promise.prototype.then = function (...args) { seen.push(this, ...args); return then.apply(this, args) }; await readFile({ path: "README.md" }).then((v) => v); await ls(".").then(null, null); await bash({ command: "exit 1" }).catch(() => {}); Promise.prototype.then = then; check("then", ...seen); report()`,
  "Promise[Symbol.species] on a tool's promise": `const seen = []; class Spy extends Promise { constructor(executor) { super((resolve, reject) => { seen.push(resolve, reject); executor(resolve, reject) }) } } Object.defineProperty(Promise, Symbol.species, { get() { return Spy } }); await readFile({ path: "README.md" }).then(() => {}); check("species", ...seen); report()`,
  "a thenable a tool call resolves into": `const seen = []; Object.prototype.then = function (...args) { seen.push(this, ...args); delete Object.prototype.then; args[0] && args[0](this) }; const value = await readFile({ path: "README.md" }).then(() => ({ x: 1 })); delete Object.prototype.then; check("thenable", value, ...seen); report()`,
  "Error.prepareStackTrace call sites": `const seen = []; Error.prepareStackTrace = (error, sites) => { seen.push(error, sites); for (const s of sites) { for (const m of ["getThis", "getFunction", "getTypeName", "getFileName", "getEvalOrigin"]) { try { seen.push(s[m] && s[m]()) } catch {} } } return "stack" }; new Error("x").stack; await bash({ command: "exit 3" }).catch((e) => { seen.push(e, e.stack) }); console.log({ a: 1 }); setTimeout(() => { new Error("t").stack }, 0); await new Promise((r) => setTimeout(r, 5)); Error.prepareStackTrace = undefined; check("sites", ...seen); report()`,
  "Error.captureStackTrace and stack getters": `const o = {}; Error.captureStackTrace && Error.captureStackTrace(o); const seen = [o, o.stack]; const e = new Error("x"); Object.defineProperty(e, "stack", { get() { seen.push(this, ...arguments); return "s" } }); console.log(e); check("capture", ...seen); report()`,
  "a thrown object with getters the error report reads": `const seen = []; throw { get message() { seen.push(this, ...arguments); console.log("message read"); check("thrown", ...arguments, this); report(); return "m" }, get stack() { check("stack getter", this, ...arguments); report(); return "script.js:1" }, get name() { check("name getter", this, ...arguments); report(); return "N" } }`,
  "an unhandled rejection with getters": `const reason = { get message() { check("rejection", this, ...arguments); report(); return "m" }, get stack() { check("rejection stack", this, ...arguments); report(); return "" } }; Promise.reject(reason); await new Promise((r) => setTimeout(r, 20))`,
  "import() of node modules": `for (const spec of ["node:fs", "fs", "bun", "node:child_process", "data:text/javascript,export default process"]) { try { const m = await import(spec); check("module", m); console.log("imported " + spec) } catch (error) { check("import error " + spec, error) } } report()`,
  "import() from Function and eval code": `for (const make of [() => Function("return import('node:fs')")(), () => eval("import('node:fs')"), () => (0, eval)("import('node:fs')"), () => new (async () => {}).constructor("return await import('node:fs')")()]) { try { const m = await make(); check("module", m); console.log("imported") } catch (error) { check("import error", error) } } report()`,
  "eval, Function and this": `check("eval", eval("this"), (0, eval)("this"), Function("return this")(), new Function("return globalThis")(), (function () { return this })()); console.log(typeof Function("return typeof process")() === "string" && Function("return typeof process")()); report()`,
  "arguments.callee.caller from timers, getters and tool callbacks": `const seen = []; function sloppy() { try { seen.push(arguments.callee); seen.push(sloppy.caller); let f = sloppy.caller; for (let i = 0; f && i < 5; i++) { seen.push(f); f = f.caller } } catch (error) { seen.push(error) } }
    setTimeout(sloppy, 0); await new Promise((r) => setTimeout(r, 5)); await readFile({ get path() { sloppy(); return "README.md" } }); readFile({ path: "README.md" }).then(sloppy); await ls("."); console.log({ get a() { sloppy(); return 1 }, toString: sloppy }); queueMicrotask?.(sloppy); await null; check("caller", ...seen); report()`,
  "timer objects, their methods and callback this": `const seen = []; const t = setTimeout(function (...args) { seen.push(this, ...args) }, 0, "x"); const i = setInterval(function () { seen.push(this, arguments) }, 1); await new Promise((r) => setTimeout(r, 10)); clearInterval(i); seen.push(t, i); for (const v of [t, i]) for (const k of ["ref", "unref", "hasRef", "refresh", Symbol.toPrimitive]) { try { seen.push(v[k], v[k] && v[k]()) } catch {} } check("timers", ...seen); report()`,
  "AbortController and AbortSignal events": `const seen = []; const c = new AbortController(); c.signal.addEventListener("abort", function (event) { seen.push(this, event, event.target, ...arguments) }); c.signal.onabort = function (event) { seen.push(this, event) }; c.abort(); seen.push(c.signal.reason); try { c.signal.throwIfAborted() } catch (e) { seen.push(e) }
    const t = AbortSignal.timeout(1); await new Promise((r) => setTimeout(r, 10)); seen.push(t.reason, AbortSignal.abort(), AbortSignal.any?.([t])); check("abort", ...seen); report()`,
  "fetch, its response, headers and body": `const response = await fetch("http://127.0.0.1:PORT/"); const seen = [response, response.headers, response.headers.get("x-probe"), response.clone()]; const body = response.json(); seen.push(body, await body); check("fetch", ...seen, fetch("http://127.0.0.1:PORT/")); report()`,
  "errors from fetch": `const seen = []; for (const url of ["http://127.0.0.1:1/", "not a url", "file:///etc/passwd"]) { try { await fetch(url) } catch (error) { seen.push(error, error.cause) } } const c = new AbortController(); const p = fetch("http://127.0.0.1:PORT/", { signal: c.signal }); c.abort(); try { await p } catch (error) { seen.push(error) } check("fetch errors", ...seen); report()`,
  "fetch with a Proxy and getters in its options": `const seen = []; const handler = new Proxy({}, { get: (_, trap) => (...args) => { seen.push(...args); return Reflect[trap](...args) } }); await fetch("http://127.0.0.1:PORT/", new Proxy({ method: "POST", body: "x", headers: { a: "b" } }, handler)).catch((e) => seen.push(e)); await fetch({ toString() { seen.push(this, ...arguments); return "http://127.0.0.1:PORT/" } }).catch((e) => seen.push(e)); check("fetch proxy", ...seen); report()`,
  "WebAssembly modules, imports and errors": `const seen = []; const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,4,1,96,0,0,2,7,1,1,109,1,102,0,0,8,1,0]); try { const { instance, module } = await WebAssembly.instantiate(bytes, { m: { f: function (...args) { seen.push(this, ...args) } } }); seen.push(instance, module, WebAssembly.Module.imports(module)) } catch (e) { seen.push(e) } try { await WebAssembly.compile(new Uint8Array([1, 2])) } catch (e) { seen.push(e) } try { new WebAssembly.Memory({ initial: 1 }).grow(100000) } catch (e) { seen.push(e) } check("wasm", WebAssembly, ...seen); report()`,
  "SharedArrayBuffer and Atomics": `const seen = []; const view = new Int32Array(new SharedArrayBuffer(8)); try { seen.push(Atomics.wait(view, 0, 1, 0)) } catch (e) { seen.push(e) } try { const r = Atomics.waitAsync?.(view, 0, 0, 1); seen.push(r, r && r.value); if (r && r.async) seen.push(await r.value) } catch (e) { seen.push(e) } check("atomics", view, view.buffer, Atomics, ...seen); report()`,
  "Intl and Temporal objects": `const seen = [new Intl.DateTimeFormat(), new Intl.DateTimeFormat().resolvedOptions(), new Intl.NumberFormat().formatToParts(1), [...new Intl.Segmenter().segment("a b")], Intl.supportedValuesOf?.("calendar")]; try { seen.push(new Intl.DateTimeFormat("xx-invalid-!!")) } catch (e) { seen.push(e) } try { seen.push(Temporal.Now.instant(), Temporal.Now.timeZoneId()) } catch (e) { seen.push(e) } check("intl", ...seen); report()`,
  "queueMicrotask callbacks": `const seen = []; if (typeof queueMicrotask === "function") { queueMicrotask(function (...args) { seen.push(this, ...args) }); await null; await null } check("microtask", ...seen, typeof queueMicrotask === "function" ? queueMicrotask : null); report()`,
  "ShadowRealm": `const seen = []; try { const realm = new ShadowRealm(); seen.push(realm); console.log("shadow: " + realm.evaluate("typeof process + ' ' + typeof Bun")); seen.push(realm.evaluate("(s) => globalThis")) } catch (error) { seen.push(error) } check("shadow", ...seen); report()`,
  "Error.cause and AggregateError from Promise.any over tool calls": `const seen = []; try { await Promise.any([bash({ command: "exit 1" }), bash({ command: "exit 2" })]) } catch (error) { seen.push(error, error.errors, ...error.errors, ...error.errors.map((e) => e.cause)) } try { await Promise.all([bash({ command: "exit 3" })]) } catch (error) { seen.push(error) } check("aggregate", ...seen); report()`,
  "stack overflow around tool calls and console.log": `const seen = []; function deep(n) { try { return deep(n + 1) } catch (error) { seen.push(error); try { console.log(n > 0 ? "" : "x") } catch (e) { seen.push(e) } try { readFile({ path: "README.md" }).catch((e) => seen.push(e)) } catch (e) { seen.push(e) } return n } } deep(0); await new Promise((r) => setTimeout(r, 10)); check("overflow", ...seen); report()`,
  "delegate and taskComplete results": `const seen = []; try { seen.push(await delegate("x")) } catch (error) { seen.push(error) } const done = taskComplete("probe"); seen.push(done, await done); check("agent calls", ...seen); report()`,
  "built-ins replaced with spies before the realm's own code runs": `const seen = []; let busy = false; const spy = (holder, key) => { const original = holder[key]; if (typeof original !== "function") return; const apply = Reflect.apply; holder[key] = function (...args) { if (!busy) { busy = true; seen[seen.length] = this; for (let i = 0; i < args.length; i++) seen[seen.length] = args[i]; busy = false } return apply(original, this, args) } }
    const targets = [[Function.prototype, "call"], [Function.prototype, "apply"], [Function.prototype, "bind"], [Array.prototype, "push"], [Array.prototype, "map"], [Array.prototype, "join"], [Array.prototype, "slice"], [Map.prototype, "get"], [Map.prototype, "set"], [Map.prototype, "delete"], [WeakMap.prototype, "get"], [WeakMap.prototype, "set"], [JSON, "stringify"], [JSON, "parse"], [Object, "defineProperty"], [Object, "keys"], [String.prototype, "split"], [String.prototype, "includes"], [String.prototype, "slice"], [Promise.prototype, "then"], [Promise, "resolve"], [Reflect, "ownKeys"], [Object, "getOwnPropertyDescriptor"]]
    const originals = targets.map(([holder, key]) => [holder, key, holder[key]]); for (const [holder, key] of targets) spy(holder, key)
    try { console.log({ a: [1, new Map([[1, 2]])] }, "%s %o", 1, { b: 2 }); await readFile({ path: "README.md" }); await bash({ command: "exit 2" }).catch((e) => seen.push(e)); await new Promise((r) => setTimeout(r, 1)); new URL("http://a.test/?x=1").searchParams.append("y", "2"); new TextDecoder().decode(new TextEncoder().encode("é")); structuredClone({ a: 1 }); await new Response("x").text(); await fetch("http://127.0.0.1:PORT/").then((r) => r.text()) } catch (error) { seen.push(error) }
    busy = true; for (const [holder, key, original] of originals) holder[key] = original
    console.log("spied " + seen.length); check("spies", ...seen); report()`,
  "process, Bun and require are not globals, even through with/globalThis lookups": `const seen = []; for (const name of ["process", "Bun", "require", "module", "global", "self", "__dirname", "Deno", "navigator", "Buffer"]) { seen.push(name + ":" + typeof globalThis[name]) } console.log(seen.join(" ")); check("names", globalThis, globalThis.global, globalThis.self, globalThis.navigator); report()`,
}

/**
 * Routes through an error that escapes the script (an unhandled rejection): bun test handles
 * those in workers itself, so these run through `clanka exec --sandbox off`.
 */
const CLI_PROBES = new Set(["an unhandled rejection with getters"])

async function probe(body: string, name = ""): Promise<{ output: string; error?: Error }> {
  if (CLI_PROBES.has(name)) {
    const result = await clanka(["exec", "--sandbox", "off", "-C", dir, "-e", PRELUDE + body])
    return { output: result.stdout + result.stderr }
  }
  let output = ""
  try {
    for await (const text of executor.execute({
      script: PRELUDE + body.replaceAll("PORT", String(server.port)),
      onTaskComplete() {},
      onSubagent: async () => "sub-agent done",
    }))
      output += text
    return { output }
  } catch (error) {
    return { output, error: error as Error }
  }
}

describe("escape probes: no route from a script reaches the host realm", () => {
  test("the corpus has at least 40 probes", () => {
    expect(Object.keys(PROBES).length).toBeGreaterThanOrEqual(40)
  })

  for (const [name, body] of Object.entries(PROBES)) {
    test(name, async () => {
      const { output, error } = await probe(body, name)
      expect(output).not.toContain(SECRET)
      expect(output).not.toContain("HOST")
      expect(output).not.toContain("FOREIGN")
      expect(output).not.toContain("imported")
      // The probe ran to its end and looked at something.
      expect(output).toContain("no leak")
      expect(Number(/checked (\d+)/.exec(output)?.[1])).toBeGreaterThan(0)
      expect(error?.message ?? "").not.toContain(SECRET)
    })
  }

  test("no global is a bridge to the host", async () => {
    const { output } = await probe(PROBES["hidden bridge names on the global"]!)
    expect(output).toContain("odd globals: []")
  })

  test("a ShadowRealm is not available to reach a fresh host global", async () => {
    const { output } = await probe(PROBES.ShadowRealm!)
    expect(output).not.toContain("shadow: object")
  })
})
