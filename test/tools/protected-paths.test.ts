// Which paths stay read-only in a writable root: found by following git's own pointers (a .git
// file, commondir, submodules' git dirs and checkouts), opened only by a --writable naming them.
import { afterAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { protectedBinds, protectedPaths } from "../../src/tools/protected-paths.ts"

const base = realpathSync(mkdtempSync(join(tmpdir(), "clanka-protected-list-")))
afterAll(() => rmSync(base, { recursive: true, force: true }))

function tree(name: string, files: Record<string, string>): string {
  const dir = join(base, name)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true })
    if (path.endsWith("/")) mkdirSync(join(dir, path), { recursive: true })
    else writeFileSync(join(dir, path), text)
  }
  return dir
}

const relative = (dir: string, paths: string[]) => paths.map((path) => path.slice(dir.length + 1)).sort()

test("a plain repository: its hooks, config and clanka's files, existing or not", () => {
  const dir = tree("plain", { ".git/HEAD": "ref: refs/heads/main\n", ".git/hooks/": "" })
  expect(relative(dir, protectedPaths(dir, []))).toEqual([".clanka", ".git/commondir", ".git/config", ".git/config.worktree", ".git/hooks", ".mcp.json", "clanka.json"])
  // Only what exists is bound (read-only), after .git is pinned where it is.
  expect(protectedBinds(dir, [])).toEqual(["--bind", join(dir, ".git"), join(dir, ".git"), "--ro-bind", join(dir, ".git/hooks"), join(dir, ".git/hooks")])
})

test("a worktree's .git file leads to its git dir and, through commondir, to the common one", () => {
  const dir = tree("worktree", {
    ".git": "gitdir: .repo/worktrees/wt\n",
    ".repo/worktrees/wt/HEAD": "x",
    ".repo/worktrees/wt/commondir": "../..\n",
    ".repo/config": "",
    ".repo/hooks/": "",
  })
  expect(relative(dir, protectedPaths(dir, []))).toEqual([
    ".clanka",
    ".git",
    ".mcp.json",
    ".repo/config",
    ".repo/hooks",
    ".repo/worktrees/wt/commondir",
    ".repo/worktrees/wt/config",
    ".repo/worktrees/wt/config.worktree",
    ".repo/worktrees/wt/hooks",
    "clanka.json",
  ])
})

test("submodules: each git dir under .git/modules (nested names too) and the checkout's .git file", () => {
  const dir = tree("submodules", {
    ".git/HEAD": "x",
    ".git/modules/libs/a/HEAD": "x",
    ".git/modules/libs/a/config": "[core]\n\tworktree = ../../../../libs/a\n",
    "libs/a/.git": "gitdir: ../../.git/modules/libs/a\n",
  })
  const paths = relative(dir, protectedPaths(dir, []))
  expect(paths).toContain(".git/modules/libs/a/config")
  expect(paths).toContain(".git/modules/libs/a/hooks")
  expect(paths).toContain("libs/a/.git")
})

test("--writable opens a protected path it names or a parent inside the root; not the root, not a parent outside", () => {
  const dir = tree("open", { ".git/HEAD": "x", ".git/hooks/": "", ".git/config": "" })
  const hooks = join(dir, ".git/hooks")
  expect(protectedPaths(dir, [hooks])).not.toContain(hooks)
  expect(protectedPaths(dir, [hooks])).toContain(join(dir, ".git/config"))
  expect(protectedPaths(dir, [join(dir, ".git")])).not.toContain(join(dir, ".git/config"))
  expect(protectedPaths(dir, [dir, base])).toContain(hooks)
})
