import { expect, test } from "bun:test"
import { callTool } from "../../src/tools/registry.ts"
import { GLOB_LIMIT, globFiles } from "../../src/tools/search/glob.ts"
import { makeContext, temporaryTrees } from "./search-helpers.ts"

const tree = temporaryTrees()

const glob = (pattern: unknown, dir: string) => callTool("glob", pattern, makeContext(dir))

test("sorted relative paths of files; ** crosses directories, * does not", async () => {
  const dir = tree({
    "src/b.ts": "",
    "src/a.ts": "",
    "src/deep/c.ts": "",
    "src/deep/d.js": "",
    "top.ts": "",
    "README.md": "",
  })
  expect(await glob("**/*.ts", dir)).toEqual(["src/a.ts", "src/b.ts", "src/deep/c.ts", "top.ts"])
  expect(await glob("*.ts", dir)).toEqual(["top.ts"])
  expect(await glob("src/*", dir)).toEqual(["src/a.ts", "src/b.ts"])
  expect(await glob("./src/**/*.{js,md}", dir)).toEqual(["src/deep/d.js"])
  expect(await glob("src/?.ts", dir)).toEqual(["src/a.ts", "src/b.ts"])
  expect(await glob("**/[cd].*", dir)).toEqual(["src/deep/c.ts", "src/deep/d.js"])
  expect(await glob("nothing/**", dir)).toEqual([])
})

test("respects .gitignore, skips .git, keeps other hidden files", async () => {
  const dir = tree({
    ".gitignore": "dist/\n*.log\n",
    "dist/out.js": "",
    "app.log": "",
    "app.js": "",
    ".github/workflows/ci.yml": "",
    ".git/config": "",
    ".git/HEAD": "",
  })
  expect(await glob("**/*", dir)).toEqual([".github/workflows/ci.yml", ".gitignore", "app.js"])
  expect(await glob(".git/*", dir)).toEqual([])
})

test("directories are not listed; symlinks are not followed", async () => {
  const dir = tree({ "a/b/c.txt": "", "link": { symlink: "a" } })
  expect(await glob("**", dir)).toEqual(["a/b/c.txt"])
})

test("absolute or escaping patterns reject with a clear message", async () => {
  const dir = tree({ "a.txt": "" })
  await expect(glob("/etc/*", dir)).rejects.toThrow('glob: pattern "/etc/*" must be relative to the working directory, without ".."')
  await expect(glob("../*", dir)).rejects.toThrow('glob: pattern "../*" must be relative to the working directory, without ".."')
})

test("a negated pattern rejects instead of answering an empty list", async () => {
  const dir = tree({ "a.txt": "", "b.txt": "" })
  await expect(glob("!a.txt", dir)).rejects.toThrow(
    'glob: pattern "!a.txt": a leading "!" (negation) is not supported; glob the files and filter the list in the script',
  )
})

test("past the limit (10,000 by default) results are capped with a note entry", async () => {
  const dir = tree({ "b/2": "", "b/1": "", "a": "", "c": "", "b/3": "" })
  expect(GLOB_LIMIT).toBe(10_000)
  expect(await globFiles("**", dir, undefined, 3)).toEqual(["a", "b/1", "b/2", "[… 2 more files not shown; narrow the pattern]"])
  expect(await globFiles("**", dir, undefined, 5)).toEqual(["a", "b/1", "b/2", "b/3", "c"])
})
