#!/usr/bin/env bun
// The figures behind two hand-written modules: the JSON Schema validator (src/schema/validate.ts)
// and the glob/ignore-rule compiler (src/tools/search/glob-pattern.ts), each set against the
// libraries that could replace it. The candidates are installed into .bench/libs, never into the
// project. Each candidate becomes a small program compiled the way scripts/build.ts builds clanka;
// the script prints what each program weighs and costs at start-up, then how fast each matcher
// decides ignore rules for every file of node_modules/.
// Usage: bun scripts/bench-libs.ts   (needs the npm registry once, for the candidates)
import { $ } from "bun"
import { existsSync, statSync } from "node:fs"
import { join } from "node:path"
import { median } from "./stats.ts"

const root = join(import.meta.dir, "..")
const libs = join(root, ".bench/libs")
const candidates = ["ajv@8.20.0", "@cfworker/json-schema@4.1.6", "picomatch@4.0.7", "ignore@7.0.16"]
if (!existsSync(join(libs, "node_modules/ignore"))) {
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
const ignoreLines = ["*.map", "!keep.map", "dist/", "**/test/**", "*.d.ts", "docs/", "*.md", "[Cc]hangelog*", "LICENSE*", "/@types/", "*.min.js", "src/**/*.test.*", ".bin", "*.cjs"]
const paths = ["a/b.map", "x/test/y.ts", "src/a.test.ts", "CHANGELOG.md", "lib/index.js"]
// For the glob matchers, each line as a whole-path glob: a line without `/` matches at any depth.
// Negation and directory-only are left out; they do not change which of these files match.
const globs = ignoreLines.map((line) => {
  const glob = line.replace(/^!/, "").replace(/\/$/, "")
  return glob.includes("/") ? glob.replace(/^\//, "") : `**/${glob}`
})
const programs: Record<string, string> = {
  "empty program": "",
  "validator: hand-written": `import { schemaProblem, validateJson } from ${JSON.stringify(join(root, "src/schema/validate.ts"))}\n` +
    check(`schemaProblem(schema) === undefined && validateJson(schema, ${JSON.stringify(wrong)}).length > 0`),
  "validator: ajv": `import Ajv from "ajv"\n` +
    check(`!new Ajv({ allErrors: true, strict: false, ownProperties: true }).compile(schema)(${JSON.stringify(wrong)})`),
  "validator: @cfworker": `import { Validator } from "@cfworker/json-schema"\n` +
    check(`!new Validator(schema, "2020-12", false).validate(${JSON.stringify(wrong)}).valid`),
  "globs: hand-written": `import { matchRules, parseIgnoreFile } from ${JSON.stringify(join(root, "src/tools/search/glob-pattern.ts"))}\n` +
    `const rules = parseIgnoreFile(${JSON.stringify(ignoreLines.join("\n"))})\nconsole.log(${JSON.stringify(paths)}.map((p) => matchRules(rules, p, false)))`,
  "globs: Bun.Glob": `console.log(${JSON.stringify(paths)}.map((p) => ${JSON.stringify(globs)}.some((g) => new Bun.Glob(g).match(p))))`,
  "globs: picomatch": `import picomatch from "picomatch"\n` +
    `console.log(${JSON.stringify(paths)}.map((p) => ${JSON.stringify(globs)}.some((g) => picomatch.makeRe(g, { dot: true }).test(p))))`,
  "globs: ignore": `import ignore from "ignore"\n` +
    `const ig = ignore({ ignorecase: false }).add(${JSON.stringify(ignoreLines)})\nconsole.log(${JSON.stringify(paths)}.map((p) => ig.test(p)))`,
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

// Matching speed: every file under node_modules/ against the ignore lines and the glob **/*.js
// (the ignore package takes the lines only: it has no whole-path globs).
const matching = join(libs, "matching.ts")
await Bun.write(matching, `
import { globToRegExp, matchRules, parseIgnoreFile } from ${JSON.stringify(join(root, "src/tools/search/glob-pattern.ts"))}
import picomatch from "picomatch"
import ignore from "ignore"
import { median } from ${JSON.stringify(join(root, "scripts/stats.ts"))}
const lines = ${JSON.stringify(ignoreLines)}
const globs = ${JSON.stringify(globs)}
const paths = [...new Bun.Glob("**/*").scanSync({ cwd: ${JSON.stringify(join(root, "node_modules"))}, dot: true })]
const engines = {
  "hand-written": () => {
    const rules = parseIgnoreFile(lines.join("\\n"))
    const js = globToRegExp("**/*.js")
    return (p) => matchRules(rules, p, false) === "ignore" || js.test(p)
  },
  "Bun.Glob": () => {
    const compiled = globs.map((g) => new Bun.Glob(g))
    const js = new Bun.Glob("**/*.js")
    return (p) => compiled.some((g) => g.match(p)) || js.match(p)
  },
  "picomatch": () => {
    const compiled = globs.map((g) => picomatch.makeRe(g, { dot: true }))
    const js = picomatch.makeRe("**/*.js", { dot: true })
    return (p) => compiled.some((r) => r.test(p)) || js.test(p)
  },
  "ignore": () => {
    const ig = ignore({ ignorecase: false }).add(lines)
    return (p) => ig.test(p).ignored
  },
}
console.log(\`matching \${paths.length} paths of node_modules/ against \${lines.length} ignore lines and **/*.js (medians of 25 runs)\`)
for (const [name, make] of Object.entries(engines)) {
  const times = []
  for (let run = 0; run < 30; run++) {
    const started = performance.now()
    const match = make()
    for (const p of paths) match(p)
    times.push(performance.now() - started)
  }
  console.log(\`  \${name.padEnd(14)} \${median(times.slice(5)).toFixed(1)} ms\`)
}
`)
console.log("")
await $`${process.execPath} ${matching}`.cwd(libs)
