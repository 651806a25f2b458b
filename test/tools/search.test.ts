import { describe, expect, test } from "bun:test"
import { chmodSync, mkdirSync } from "node:fs"
import path from "node:path"
import { chooseSearchEngine, search } from "../../src/tools/search.ts"
import { hasRg, makeContext, needsRg, rgBoth, rgErrors, temporaryTrees } from "./search-helpers.ts"

const tree = temporaryTrees()

const outputs = hasRg
  ? "rg output, identical from the rg binary and the built-in search"
  : "rg output from the built-in search [the rg binary is not on PATH, so it is not compared]"

describe(outputs, () => {
  test("headings, line numbers, files in ripgrep's path order", async () => {
    const dir = tree({
      "a.txt": "one\nfoo here\nthree\nfoo again\n",
      "a/b.txt": "foo in a dir\n",
      "a-b.txt": "no\nfoo\n",
      "B/x.md": "# foo\n",
      "empty.txt": "",
      "none.txt": "nothing\n",
    })
    expect(await rgBoth({ pattern: "foo" }, dir)).toBe(
      ["B/x.md", "1:# foo", "", "a/b.txt", "1:foo in a dir", "", "a-b.txt", "2:foo", "", "a.txt", "2:foo here", "4:foo again"].join("\n"),
    )
  })

  test("no match is said plainly, naming the glob", async () => {
    const dir = tree({ "a.txt": "hello\n" })
    expect(await rgBoth({ pattern: "absent" }, dir)).toBe('No matches for "absent".')
    expect(await rgBoth({ pattern: "hello", glob: "*.md" }, dir)).toBe('No matches for "hello" in files matching *.md.')
  })

  test("regex syntax: classes, anchors, alternation, (?i)", async () => {
    const dir = tree({ "code.ts": "export function alpha() {}\nfunction beta() {}\n  export const Gamma = 1\nEXPORT x\n" })
    expect(await rgBoth({ pattern: "^export (function|const) \\w+" }, dir)).toBe("code.ts\n1:export function alpha() {}")
    expect(await rgBoth({ pattern: "(?i)^\\s*export" }, dir)).toBe(
      "code.ts\n1:export function alpha() {}\n3:  export const Gamma = 1\n4:EXPORT x",
    )
    expect(await rgBoth({ pattern: "\\(\\) \\{\\}$" }, dir)).toBe("code.ts\n1:export function alpha() {}\n2:function beta() {}")
  })

  test(".gitignore, .ignore and .rgignore decide as in ripgrep, also without a git repository", async () => {
    const dir = tree({
      ".gitignore": "*.log\n/build\nlogs/\n!keep.log\nsub/deep.txt\n",
      "app.log": "match\n",
      "keep.log": "match\n",
      "build/out.txt": "match\n",
      "src/build/kept.txt": "match\n",
      "logs/x.txt": "match\n",
      "src/logs": "match\n", // a file named like a dir-only pattern
      "sub/deep.txt": "match\n",
      "deep.txt": "match\n",
      "nested/.gitignore": "*.txt\n!important.txt\n",
      "nested/a.txt": "match\n",
      "nested/important.txt": "match\n",
      "nested/a.md": "match\n",
      ".ignore": "*.md\n",
      "other/.rgignore": "!*.md\n",
      "other/readme.md": "match\n",
    })
    expect(await rgBoth({ pattern: "match", filesOnly: true }, dir)).toBe(
      ["deep.txt", "keep.log", "nested/important.txt", "other/readme.md", "src/build/kept.txt", "src/logs"].join("\n"),
    )
  })

  test("hidden, binary, symlinked and over-1 MB files are skipped; 1 MB exactly is searched", async () => {
    const dir = tree({
      ".env": "match\n",
      ".hidden/x.txt": "match\n",
      "visible.txt": "match\n",
      "binary.bin": Buffer.from("match\n\0\n"),
      "late-binary.bin": Buffer.concat([Buffer.from("match\n"), Buffer.alloc(300_000, 97), Buffer.from("\n\0\n")]),
      "link.txt": { symlink: "visible.txt" },
      "big.txt": "x".repeat(1024 * 1024 - 6) + "match\n",
      "bigger.txt": "x".repeat(1024 * 1024 - 5) + "match\n",
    })
    expect(await rgBoth({ pattern: "match", filesOnly: true }, dir)).toBe("big.txt\nvisible.txt")
  })

  test("a .gitignore above the directory applies, but not above a repository root", async () => {
    const outer = tree({
      ".gitignore": "*.gen\n",
      "work/a.gen": "match\n",
      "work/a.txt": "match\n",
      "work/repo/b.gen": "match\n",
      "work/repo/.gitignore": "*.tmp\n",
      "work/repo/c.tmp": "match\n",
      "work/repo/d.txt": "match\n",
    })
    mkdirSync(path.join(outer, "work/repo/.git"))
    expect(await rgBoth({ pattern: "match", filesOnly: true }, path.join(outer, "work"))).toBe(
      "a.txt\nrepo/b.gen\nrepo/d.txt",
    )
  })

  test("glob filters: basename, anchored, negated, several", async () => {
    const dir = tree({
      "src/a.ts": "x\n",
      "src/a.test.ts": "x\n",
      "src/deep/b.ts": "x\n",
      "lib/c.js": "x\n",
      "d.ts": "x\n",
    })
    const files = (glob: string | string[]) => rgBoth({ pattern: "x", glob, filesOnly: true }, dir)
    expect(await files("*.ts")).toBe("d.ts\nsrc/a.test.ts\nsrc/a.ts\nsrc/deep/b.ts")
    expect(await files("src/**")).toBe("src/a.test.ts\nsrc/a.ts\nsrc/deep/b.ts")
    expect(await files("src/*.ts")).toBe("src/a.test.ts\nsrc/a.ts")
    expect(await files("!*.ts")).toBe("lib/c.js")
    expect(await files(["*.ts", "!*.test.ts"])).toBe("d.ts\nsrc/a.ts\nsrc/deep/b.ts")
    expect(await files("*.{js,md}")).toBe("lib/c.js")
  })

  test("the default cap is 500 matching lines, with a note", async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `hit ${i}`).join("\n") + "\n"
    const dir = tree({ "a.txt": lines, "b.txt": lines })
    const output = await rgBoth({ pattern: "hit" }, dir)
    const rows = output.split("\n")
    expect(rows.filter((row) => /^\d+:/.test(row))).toHaveLength(500)
    expect(rows.slice(-4)).toEqual(["199:hit 198", "200:hit 199", "", "[output capped at 500 lines; narrow the pattern or glob, or raise maxLines]"])
  })

  test("maxLines caps lines, filesOnly caps files; exactly at the cap there is no note", async () => {
    const dir = tree({ "a.txt": "hit\nhit\n", "b.txt": "hit\n", "c.txt": "hit\n" })
    expect(await rgBoth({ pattern: "hit", maxLines: 3 }, dir)).toBe(
      "a.txt\n1:hit\n2:hit\n\nb.txt\n1:hit\n\n[output capped at 3 lines; narrow the pattern or glob, or raise maxLines]",
    )
    expect(await rgBoth({ pattern: "hit", maxLines: 4 }, dir)).toBe("a.txt\n1:hit\n2:hit\n\nb.txt\n1:hit\n\nc.txt\n1:hit")
    expect(await rgBoth({ pattern: "hit", filesOnly: true, maxLines: 2 }, dir)).toBe(
      "a.txt\nb.txt\n\n[output capped at 2 files; narrow the pattern or glob, or raise maxLines]",
    )
  })

  test("long lines are clipped around the first match", async () => {
    const line = "é".repeat(1000) + "NEEDLE" + "z".repeat(1000)
    const dir = tree({ "min.js": `short NEEDLE\n${line}\n` })
    const expected = `min.js\n1:short NEEDLE\n2:…${"é".repeat(100)}NEEDLE${"z".repeat(194)}… [line clipped, 2006 chars]`
    expect(await rgBoth({ pattern: "NEEDLE" }, dir)).toBe(expected)
  })

  test("CRLF line ends, a UTF-8 BOM and UTF-16 text", async () => {
    const dir = tree({
      "crlf.txt": "one\r\nfind me\r\n",
      "bom.txt": "\uFEFFfind me first\n",
      "utf16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("x\nfind me wide\n", "utf16le")]),
      "invalid.txt": Buffer.from([0x66, 0x69, 0x6e, 0x64, 0x20, 0xff, 0x0a]),
    })
    expect(await rgBoth({ pattern: "^find" }, dir)).toBe(
      "bom.txt\n1:find me first\n\ncrlf.txt\n2:find me\n\ninvalid.txt\n1:find \uFFFD\n\nutf16.txt\n2:find me wide",
    )
  })

  test("patterns starting with a dash are patterns, not flags", async () => {
    const dir = tree({ "a.txt": "--verbose\n" })
    expect(await rgBoth({ pattern: "--verbose" }, dir)).toBe("a.txt\n1:--verbose")
  })

  test("a bad regex rejects with the built-in search's regex error", async () => {
    const dir = tree({ "a.txt": "x\n" })
    // JavaScriptCore's words for the mistake.
    expect((await rgErrors({ pattern: "foo(" }, dir)).builtin).toBe('rg: invalid regex "foo(": missing )')
  })

  test.skipIf(!hasRg)(needsRg("a bad regex rejects with the rg binary's regex error"), async () => {
    const dir = tree({ "a.txt": "x\n" })
    expect((await rgErrors({ pattern: "foo(" }, dir)).rg).toBe('rg: invalid regex "foo(": unclosed group')
  })

  test("invalid parameters reject before searching", async () => {
    const dir = tree({ "a.txt": "x\n" })
    const messages = Object.values(await rgErrors({ pattern: "x", maxLines: 0 }, dir))
    for (const message of messages) expect(message).toStartWith("rg: invalid parameters: maxLines:")
  })
})

describe("engine choice", () => {
  test("rg on PATH is used, otherwise the built-in search; CLANKA_SEARCH_ENGINE forces one", () => {
    // Any executable named rg will do: the choice looks at PATH only.
    const rgDir = tree({ rg: "#!/bin/sh\n" })
    chmodSync(path.join(rgDir, "rg"), 0o755)
    expect(chooseSearchEngine({ PATH: `/nonexistent:${rgDir}` })).toBe("rg")
    expect(chooseSearchEngine({ PATH: "/nonexistent" })).toBe("builtin")
    expect(chooseSearchEngine({ PATH: rgDir, CLANKA_SEARCH_ENGINE: "builtin" })).toBe("builtin")
    expect(chooseSearchEngine({ PATH: "/nonexistent", CLANKA_SEARCH_ENGINE: "rg" })).toBe("rg")
  })
})

describe("cancellation", () => {
  let dir: string | undefined
  const bigTree = () => {
    if (dir) return dir
    const files: Record<string, string> = {}
    for (let i = 0; i < 3000; i++) files[`d${i % 30}/f${i}.txt`] = "nothing to see\n".repeat(20)
    return (dir = tree(files))
  }
  for (const engine of ["rg", "builtin"] as const) {
    const name = `${engine}: an aborted search rejects and leaves no process behind`
    test.skipIf(engine === "rg" && !hasRg)(engine === "rg" ? needsRg(name) : name, async () => {
      const dir = bigTree()
      const controller = new AbortController()
      const ctx = makeContext(dir, controller.signal)
      const pending = search({ pattern: "never(matches)+here" }, ctx, engine)
      // Aborted while the search is under way (rg spawned, the walk paused at its first yield),
      // before it could possibly finish.
      controller.abort()
      await expect(pending).rejects.toThrow("cancelled")
      expect(ctx.processes.size).toBe(0)
    })
  }
})
