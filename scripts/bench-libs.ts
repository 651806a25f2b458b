#!/usr/bin/env bun
// The figures behind a hand-written module: the JSON Schema validator (src/schema/validate.ts),
// set against the libraries that could replace it. The candidates are installed into .bench/libs,
// never into the project. Each candidate becomes a small program compiled the way scripts/build.ts
// builds clanka; the script prints what each program weighs and costs at start-up.
// Usage: bun scripts/bench-libs.ts   (needs the npm registry once, for the candidates)
import { $ } from "bun"
import { existsSync, statSync } from "node:fs"
import { join } from "node:path"
import { median } from "./stats.ts"

const root = join(import.meta.dir, "..")
const libs = join(root, ".bench/libs")
const candidates = ["ajv@8.20.0", "@cfworker/json-schema@4.1.6"]
if (!existsSync(join(libs, "node_modules/@cfworker/json-schema"))) {
  await Bun.write(join(libs, "package.json"), "{}")
  await $`npm install --prefix ${libs} --no-save --no-package-lock --no-audit --no-fund ${candidates}`.quiet()
}

const schema = {
  type: "object",
  required: ["files", "count"],
  additionalProperties: false,
  properties: {
    files: { type: "array", items: { type: "string", minLength: 1 }, minItems: 1 },
    count: { type: "integer", minimum: 0 },
    kind: { enum: ["fix", "feature"] },
    owner: { $ref: "#/$defs/owner" },
  },
  $defs: { owner: { type: ["string", "null"], pattern: "^@" } },
}
const wrong = { files: [""], count: 1.5, kind: "chore", owner: "me", extra: 1 }
/** Each program checks the schema and validates one wrong result; it fails unless that is refused. */
const check = (expr: string) =>
  `const schema = ${JSON.stringify(schema)}\nconst refused = ${expr}\nif (!refused) throw new Error("the wrong result was accepted")\n`
const programs: Record<string, string> = {
  "empty program": "",
  "validator: hand-written": `import { schemaProblem, validateJson } from ${JSON.stringify(join(root, "src/schema/validate.ts"))}\n` +
    check(`schemaProblem(schema) === undefined && validateJson(schema, ${JSON.stringify(wrong)}).length > 0`),
  "validator: ajv": `import Ajv from "ajv"\n` +
    check(`!new Ajv({ allErrors: true, strict: false, ownProperties: true }).compile(schema)(${JSON.stringify(wrong)})`),
  "validator: @cfworker": `import { Validator } from "@cfworker/json-schema"\n` +
    check(`!new Validator(schema, "2020-12", false).validate(${JSON.stringify(wrong)}).valid`),
}

const flags = ["--compile", "--minify", "--format=esm", "--bytecode"]
const built: { name: string; bin: string; size: number; wall: number[]; rss: number[] }[] = []
for (const [name, source] of Object.entries(programs)) {
  const base = join(libs, name.replace(/\W+/g, "-"))
  await Bun.write(`${base}.ts`, source + "\nexport {}\n")
  await $`${process.execPath} build ${flags} ${base}.ts --outfile ${base}`.cwd(libs).quiet()
  built.push({ name, bin: base, size: statSync(base).size, wall: [], rss: [] })
}
async function run(program: (typeof built)[number], record: boolean): Promise<void> {
  const started = performance.now()
  const child = Bun.spawn([program.bin], { stdout: "ignore", stderr: "ignore" })
  if ((await child.exited) !== 0) throw new Error(`${program.name} failed`)
  if (!record) return
  program.wall.push(performance.now() - started)
  program.rss.push((child.resourceUsage()?.maxRSS ?? 0) / 1024 / 1024)
}
for (const program of built) for (let i = 0; i < 3; i++) await run(program, false)
for (let i = 0; i < 40; i++) for (const program of built) await run(program, true) // interleaved
const floor = built[0]!.size
console.log("compiled program                size over empty   cold start   peak RSS")
for (const p of built) {
  const kib = ((p.size - floor) / 1024).toFixed(0).padStart(6)
  console.log(`${p.name.padEnd(30)}  ${kib} KiB      ${median(p.wall).toFixed(1).padStart(6)} ms  ${median(p.rss).toFixed(1).padStart(6)} MiB`)
}

