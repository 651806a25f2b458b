import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { parseError, parses, prepareScript, repairScript, stripFence } from "../../src/sandbox/repair.ts"

const corpus = join(import.meta.dir, "repair-corpus")
const files = readdirSync(corpus).sort()
const read = (name: string) => readFileSync(join(corpus, name), "utf8")

describe("repair corpus", () => {
  const inputs = files.filter((name) => name.endsWith(".input.js"))
  test("has at least 15 broken scripts, each with its expected repair", () => {
    expect(inputs.length).toBeGreaterThanOrEqual(15)
    for (const name of inputs) expect(files).toContain(name.replace(".input.js", ".expected.js"))
  })

  for (const name of inputs) {
    test(name.replace(".input.js", ""), () => {
      const input = read(name)
      const expected = read(name.replace(".input.js", ".expected.js"))
      const repaired = repairScript(input)
      expect(repaired).toBe(expected)
      expect(parseError(repaired)).toBeNull()
      expect(repairScript(repaired)).toBe(repaired)
    })
  }

  for (const name of files.filter((file) => file.endsWith(".unchanged.js"))) {
    test(`leaves ${name.replace(".unchanged.js", "")} alone`, () => {
      const input = read(name)
      expect(repairScript(input)).toBe(input)
    })
  }

  test("every broken input really is broken, except the fenced one that parses as a tagged template", () => {
    const parsing = inputs.filter((name) => parses(read(name)))
    expect(parsing).toEqual(["fenced-clean.input.js"])
  })
})

describe("parses", () => {
  test("accepts top-level await and return, rejects syntax errors and imports", () => {
    expect(parses("const x = await readFile({ path: 'a' })\nreturn x")).toBe(true)
    expect(parses("console.log(`a`b`)")).toBe(false)
    expect(parses("import fs from 'node:fs'")).toBe(false)
    expect(parses("}); (async () => {")).toBe(false)
  })
  test("compiles without running", () => {
    expect(parses("throw new Error('ran')")).toBe(true)
  })
  test("parseError gives the message", () => {
    expect(parseError("a b")).toBe("Unexpected identifier 'b'")
    expect(parseError("let a = 1")).toBeNull()
  })
})

describe("stripFence", () => {
  test("removes ```js, ```ts, ```javascript and bare fences with the whitespace around", () => {
    for (const info of ["js", "ts", "javascript", "", "js title=x"]) {
      expect(stripFence(`\n  \`\`\`${info}\nconsole.log(1)\nconsole.log(2)\n\`\`\`\n\n`)).toBe("console.log(1)\nconsole.log(2)")
    }
  })
  test("keeps fences inside the script", () => {
    const script = "await writeFile({ path: 'a.md', content: '```sh\\nls\\n```' })"
    expect(stripFence(`\`\`\`js\n${script}\n\`\`\``)).toBe(script)
    expect(stripFence(script)).toBe(script)
  })
  test("removes an opening fence whose closing fence is missing", () => {
    expect(stripFence("```js\nconsole.log(1)\n")).toBe("console.log(1)\n")
  })
  test("leaves an unfenced script exactly as it is", () => {
    expect(stripFence("  console.log(1)\n")).toBe("  console.log(1)\n")
  })
})

describe("repairScript", () => {
  test("escapes the template of writeFile content with other keys after it and a template path before", () => {
    const script = 'await writeFile({ path: `${d}/a.md`, content: `run `ls``, mode: "x" })'
    expect(repairScript(script)).toBe('await writeFile({ path: `${d}/a.md`, content: `run \\`ls\\``, mode: "x" })')
  })
  test("leaves a variable alone that is not handed to a repaired call", () => {
    const script = "const text = `a `b` c`\nconsole.log(text)"
    expect(repairScript(script)).toBe(script)
  })
  test("returns the fence-stripped script when the repair does not parse", () => {
    expect(repairScript("```js\nawait applyPatch(`a`b`)\nlet let = 1\n```")).toBe("await applyPatch(`a`b`)\nlet let = 1")
  })
  test("handles a large patch quickly", () => {
    const lines = Array.from({ length: 2000 }, (_, i) => (i % 10 === 0 ? `+  log(\`line ${i}: \${x}\`)` : `+  const v${i} = ${i}`))
    const script = `const r = await applyPatch(\`*** Begin Patch\n*** Update File: a.ts\n@@\n${lines.join("\n")}\n*** End Patch\`)\nconsole.log(\`done \${r}\`)`
    const started = performance.now()
    const repaired = repairScript(script)
    expect(performance.now() - started).toBeLessThan(1000)
    expect(parses(repaired)).toBe(true)
    expect(repaired.endsWith("*** End Patch`)\nconsole.log(`done ${r}`)")).toBe(true)
    expect(repaired).toContain("+  log(\\`line 10: \\${x}\\`)\n")
  })
})

describe("prepareScript", () => {
  test("strips a fence even when the fenced script happens to parse", () => {
    expect(prepareScript("```js\nconsole.log(1)\n```")).toEqual({ script: "console.log(1)", repaired: true, firstLine: 2 })
    expect(prepareScript("\n  \n```js\nconsole.log(1)\n```").firstLine).toBe(4)
  })
  test("returns a parsing script untouched", () => {
    expect(prepareScript("console.log(`a`)")).toEqual({ script: "console.log(`a`)", repaired: false, firstLine: 1 })
  })
  test("repairs a broken script", () => {
    expect(prepareScript("await taskComplete(`use `x``)")).toEqual({ script: "await taskComplete(`use \\`x\\``)", repaired: true, firstLine: 1 })
  })
})

// Repair tries ends for each broken template, each try parsing the whole script: hundreds of
// broken templates made that run past the script's time limit, so the model got "timed out after
// 600 s" instead of its syntax error. Repair gives up in time and the error comes at once.
test("a long script with hundreds of broken templates fails with its syntax error, not a time-out", async () => {
  const { clanka } = await import("../support/cli.ts")
  const { temporaryDirectory } = await import("../support/temp.ts")
  const lines = Array.from({ length: 400 }, (_, i) => `await writeFile({path: "o${i}.txt", content: \`a\` b \${ c \` d\`})\n`)
  const script = `${lines.join("")}console.log(1) \``
  const started = performance.now()
  const result = await clanka(["exec", "--sandbox", "off", "--timeout", "40", "-C", temporaryDirectory("clanka-repair-budget-"), "-e", script], { timeoutMs: 45_000 })
  expect(result.stderr).toStartWith("clanka: the script failed: SyntaxError: ")
  expect(performance.now() - started).toBeLessThan(20_000)
}, 50_000)
