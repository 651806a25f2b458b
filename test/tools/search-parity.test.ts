// Random trees with random ignore files: the built-in search must select and print exactly what
// the rg binary does.
import { expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { search } from "../../src/tools/search.ts"
import { hasRg, makeContext, needsRg, temporaryTrees, type Tree } from "./search-helpers.ts"

const makeRoot = temporaryTrees()

/** `odd` adds names and ignore lines that glob engines easily get wrong: escapes, classes, braces,
 * spaces, `**` in odd places, .rgignore files. */
function randomTree(seed: number, odd = false): Tree {
  let state = seed
  const random = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    return state / 0x7fffffff
  }
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const dirs = ["a", "b", "src", "lib", ".hid", "node_modules", "a-b", "Ab", "é", "a.d", ...(odd ? ["x y", "[a]"] : [])]
  const files = ["x.ts", "y.js", "z.md", "a", "a.b", "b_c.txt", ".dot", "Z.ts", "ü.txt", ...(odd ? ["#h", "!b", "a.ts.bak"] : [])]
  const words = ["foo", "bar", "baz", "x", "42", "foo42", "  indented", "tab\there", "end$", "ÄÖ"]
  const ignoreLines = ["*.js", "!y.js", "/lib", "src/", "**/z.md", "a*", "!a-b", "b/**", "*.md", "!z.md", ".hid", "!.hid", "Z.*", "lib/", "# comment", "", "/a/x.ts", "*/y.js", "a.?", "[ab]_c.txt"]
  if (odd) {
    ignoreLines.push("[!a]*.ts", "a/**/x.ts", "**/b/", "*.{ts,md}", "\\#h", "\\!b", "x\\ y/", "src/**/*.md", "**", "/*", "a/*/")
    ignoreLines.push("*.ts  ", "\\[a\\]", "**/a.d/**", "!/src", "é/", "*.bak", "!**/x.ts", "{a,b}/*.js", "a**")
  }
  const tree: Tree = {}
  for (let i = 0; i < 120; i++) {
    const depth = Math.floor(random() * 4)
    const parts = Array.from({ length: depth }, () => pick(dirs))
    const lines = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
      Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(words)).join(" "),
    )
    tree[[...parts, pick(files)].join("/")] = lines.join("\n") + (random() < 0.8 ? "\n" : "")
  }
  for (let i = 0; i < 6; i++) {
    const depth = Math.floor(random() * 3)
    const parts = Array.from({ length: depth }, () => pick(dirs))
    const name = pick([".gitignore", ".gitignore", ".ignore", ...(odd ? [".rgignore"] : [])])
    tree[[...parts, name].join("/")] = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(ignoreLines)).join("\n") + "\n"
  }
  // A path cannot be both a file and a directory: drop files that shadow a directory.
  for (const key of Object.keys(tree)) {
    if (Object.keys(tree).some((other) => other.startsWith(key + "/"))) delete tree[key]
  }
  return tree
}

const patterns = ["foo", "^ba", "foo|baz", "\\d+", "x$", "(?i)äö", "\\$"]
const globs: Array<string | string[] | undefined> = [undefined, "*.ts", "!*.md", "src/**", ["a/**", "!*.js"]]

for (const seed of [1, 2, 3, 4]) {
  test.skipIf(!hasRg)(needsRg(`random tree ${seed}: both engines give the same output for every query`), async () => {
    const root = makeRoot(randomTree(seed))
    const ctx = makeContext(root)
    let compared = 0
    for (const pattern of patterns) {
      for (const glob of globs) {
        for (const filesOnly of [false, true]) {
          const options = { pattern, glob, filesOnly, maxLines: 40 }
          const fromRg = await search(options, ctx, "rg")
          const fromBuiltin = await search(options, ctx, "builtin")
          expect({ options, output: fromBuiltin }).toEqual({ options, output: fromRg })
          compared++
        }
      }
    }
    expect(compared).toBe(patterns.length * globs.length * 2)
  })
}

const oddGlobs: Array<string | string[] | undefined> = [undefined, "*.ts", "!*.md", "src/**", ["a/**", "!*.js"], "**/*.ts",
  "a/**/x.ts", "[!a]*", "*.{ts,md}", "{a,b}/**", "?.ts", "**/a/*", "a*/**", ["!**/src/**", "*.js"], "[a-c]*", "\\[a\\]/**", "x y/*", ".hid/**"]

for (const seed of [1, 2, 3, 4, 5, 6]) {
  test(`random tree ${seed} with odd names and ignore lines: both engines list the same files for every glob`, async () => {
    const ctx = makeContext(makeRoot(randomTree(seed, true)))
    for (const glob of oddGlobs) {
      const options = { pattern: ".", glob, filesOnly: true, maxLines: 1000 }
      const fromRg = await search(options, ctx, "rg")
      expect({ options, output: await search(options, ctx, "builtin") }).toEqual({ options, output: fromRg })
    }
  })
}

// Where a glob library (Bun.Glob) parts from ripgrep: `\b` `\n` `\t` are the letters, `\-` in a
// class still makes a range, and `?` (one byte to rg) does not match an emoji.
test("escapes and classes in ignore lines and rg globs select what rg selects", async () => {
  const names = ["bar", "nx", "tx", "bx", "-x", "zx", "a😀b", "keep"]
  const root = makeRoot(Object.fromEntries(names.map((name) => [name, "foo\n"])))
  const ctx = makeContext(root)
  for (const line of ["\\bar", "\\nx", "\\tx", "[a\\-z]x", "a?b", "[!k]*"]) {
    writeFileSync(join(root, ".ignore"), `${line}\n`)
    for (const glob of [undefined, line]) {
      const options = { pattern: "foo", glob, filesOnly: true }
      const fromRg = await search(options, ctx, "rg")
      const fromBuiltin = await search(options, ctx, "builtin")
      expect({ ignoreLine: line, glob, output: fromBuiltin }).toEqual({ ignoreLine: line, glob, output: fromRg })
    }
  }
})
