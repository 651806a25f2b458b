import { afterEach, beforeEach, expect, test } from "bun:test"
import { chmodSync, chownSync, existsSync, linkSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ToolError } from "../../src/errors.ts"
import { builtinRegistry, callTool } from "../../src/tools/registry.ts"
import type { ToolContext } from "../../src/tools/tool.ts"
import { toolContext } from "../support/tool-context.ts"

// Behaviour the corpus (patch-corpus.test.ts) cannot express: permissions, symlinks, absolute
// paths, write failures, cancellation, the declaration the model sees, the command line.

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "clanka-patch-"))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

function context(directory = dir, signal = new AbortController().signal): ToolContext {
  return toolContext(directory, { signal })
}

async function failure(patch: string, ctx = context()): Promise<string> {
  try {
    await callTool("applyPatch", patch, ctx)
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError)
    return (error as Error).message
  }
  throw new Error("applyPatch succeeded but should have failed")
}

const read = (name: string) => readFileSync(join(dir, name), "utf8")

test("the model sees applyPatch(patch: string): Promise<string>", () => {
  expect(builtinRegistry().dts).toContain("declare function applyPatch(patch: string): Promise<string>")
})

test("updating keeps the executable bit; a git new file mode 100755 creates an executable", async () => {
  writeFileSync(join(dir, "run.sh"), "#!/bin/sh\necho one\n")
  chmodSync(join(dir, "run.sh"), 0o755)
  const patch = [
    "diff --git a/run.sh b/run.sh",
    "--- a/run.sh",
    "+++ b/run.sh",
    "@@ -1,2 +1,2 @@",
    " #!/bin/sh",
    "-echo one",
    "+echo two",
    "diff --git a/tool.sh b/tool.sh",
    "new file mode 100755",
    "--- /dev/null",
    "+++ b/tool.sh",
    "@@ -0,0 +1 @@",
    "+#!/bin/sh",
  ].join("\n")
  expect(await callTool("applyPatch", patch, context())).toBe("M run.sh\nA tool.sh")
  expect(read("run.sh")).toBe("#!/bin/sh\necho two\n")
  expect(statSync(join(dir, "run.sh")).mode & 0o777).toBe(0o755)
  expect(statSync(join(dir, "tool.sh")).mode & 0o777).toBe(0o755)
})

test("*** Add File onto an existing executable replaces its content and keeps its mode", async () => {
  writeFileSync(join(dir, "run.sh"), "#!/bin/sh\necho old\n")
  chmodSync(join(dir, "run.sh"), 0o755)
  const patch = "*** Begin Patch\n*** Add File: run.sh\n+#!/bin/sh\n+echo new\n*** End Patch"
  expect(await callTool("applyPatch", patch, context())).toBe("M run.sh")
  expect(read("run.sh")).toBe("#!/bin/sh\necho new\n")
  expect(statSync(join(dir, "run.sh")).mode & 0o777).toBe(0o755)
})

test("a symlink is followed: the target changes and the link stays a link", async () => {
  writeFileSync(join(dir, "real.txt"), "old\n")
  symlinkSync("real.txt", join(dir, "link.txt"))
  const result = await callTool("applyPatch", "*** Begin Patch\n*** Update File: link.txt\n-old\n+new\n*** End Patch", context())
  expect(result).toBe("M link.txt")
  expect(read("real.txt")).toBe("new\n")
  expect(lstatSync(join(dir, "link.txt")).isSymbolicLink()).toBe(true)
})

test("a file too large to patch is refused and left whole", async () => {
  // Past 2 GiB the text decoder answered "", so an insertion replaced the whole file with one line.
  writeFileSync(join(dir, "big.log"), "x\n".repeat(5000))
  truncateSync(join(dir, "big.log"), 2 ** 31)
  const message = await failure("*** Begin Patch\n*** Update File: big.log\n@@\n+appended\n*** End Patch")
  expect(message).toContain("big.log: cannot patch: the file is 2.0 GiB, more than the 256 MiB read at once")
  expect(message).toContain("no file was changed")
  expect(statSync(join(dir, "big.log")).size).toBe(2 ** 31)
})

test("a file that cannot be replaced (immutable) puts back the files written before it", async () => {
  writeFileSync(join(dir, "a.txt"), "a\n")
  writeFileSync(join(dir, "b.txt"), "b\n")
  chmodSync(join(dir, "a.txt"), 0o640)
  // chattr +i needs root and a file system that has the flag (ext4, tmpfs since Linux 6.0): as CI runs.
  const immutable = Bun.which("chattr") !== null && Bun.spawnSync(["chattr", "+i", join(dir, "b.txt")]).exitCode === 0
  if (!immutable && process.env.CI) throw new Error("chattr +i failed")
  if (!immutable) return
  try {
    const patch = "*** Begin Patch\n*** Add File: new/c.txt\n+c\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch"
    expect(await failure(patch)).toBe("applyPatch: could not write b.txt: permission denied; no file was changed")
  } finally {
    Bun.spawnSync(["chattr", "-i", join(dir, "b.txt")])
  }
  expect([read("a.txt"), read("b.txt")]).toEqual(["a\n", "b\n"])
  expect(statSync(join(dir, "a.txt")).mode & 0o777).toBe(0o640)
  expect(readdirSync(dir).sort()).toEqual(["a.txt", "b.txt"])
})

test.skipIf(process.getuid?.() !== 0)("run as root, keeps the owner of the files it patches", async () => {
  writeFileSync(join(dir, "a.txt"), "old\n")
  chownSync(join(dir, "a.txt"), 1234, 5678)
  await callTool("applyPatch", "*** Begin Patch\n*** Update File: a.txt\n-old\n+new\n*** End Patch", context())
  expect(statSync(join(dir, "a.txt"))).toMatchObject({ uid: 1234, gid: 5678 })
})

test("absolute paths are accepted and shown as written", async () => {
  const other = mkdtempSync(join(tmpdir(), "clanka-patch-abs-"))
  try {
    const target = join(other, "abs.txt")
    const result = await callTool("applyPatch", `*** Begin Patch\n*** Add File: ${target}\n+hi\n*** End Patch`, context())
    expect(result).toBe(`A ${target}`)
    expect(readFileSync(target, "utf8")).toBe("hi\n")
  } finally {
    rmSync(other, { recursive: true, force: true })
  }
})

test("a file in the way of a new directory fails before anything is written", async () => {
  writeFileSync(join(dir, "keep.txt"), "a\n")
  writeFileSync(join(dir, "blocker"), "")
  const patch = "*** Begin Patch\n*** Update File: keep.txt\n-a\n+b\n*** Add File: blocker/x.txt\n+x\n*** End Patch"
  expect(await failure(patch)).toBe(
    "applyPatch: blocker/x.txt: cannot add: blocker is a file, not a directory; no file was changed.",
  )
  expect(read("keep.txt")).toBe("a\n")
  expect(readdirSync(dir).sort()).toEqual(["blocker", "keep.txt"])
})

test("a write that fails after verification is rolled back: no temp file, no change", async () => {
  // /proc accepts no new directories, not even from root: the failure comes at write time.
  writeFileSync(join(dir, "a.txt"), "a\n")
  const patch = "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: /proc/clanka-x/y.txt\n+y\n*** End Patch"
  expect(await failure(patch)).toBe(
    "applyPatch: could not write /proc/clanka-x/y.txt: ENOENT: no such file or directory, mkdir '/proc/clanka-x'; no file was changed",
  )
  expect(read("a.txt")).toBe("a\n")
  expect(readdirSync(dir)).toEqual(["a.txt"])
})

test("directories created for a write that is rolled back are removed again", async () => {
  writeFileSync(join(dir, "a.txt"), "a\n")
  const patch = [
    "*** Begin Patch",
    "*** Update File: a.txt",
    "-a",
    "+A",
    "*** Add File: newdir/deep/a.txt",
    "+new",
    "*** Add File: /proc/clanka-x/y.txt",
    "+y",
    "*** End Patch",
  ].join("\n")
  expect(await failure(patch)).toBe(
    "applyPatch: could not write /proc/clanka-x/y.txt: ENOENT: no such file or directory, mkdir '/proc/clanka-x'; no file was changed",
  )
  expect(read("a.txt")).toBe("a\n")
  expect(existsSync(join(dir, "newdir"))).toBe(false)
  expect(readdirSync(dir)).toEqual(["a.txt"])
})

test("a patched file is replaced, not rewritten in place: a hard link to it keeps the old content", async () => {
  writeFileSync(join(dir, "a.txt"), "old\n")
  linkSync(join(dir, "a.txt"), join(dir, "before.txt"))
  expect(await callTool("applyPatch", "*** Begin Patch\n*** Update File: a.txt\n-old\n+new\n*** End Patch", context())).toBe("M a.txt")
  expect(read("a.txt")).toBe("new\n")
  expect(read("before.txt")).toBe("old\n")
  expect(readdirSync(dir).sort()).toEqual(["a.txt", "before.txt"])
})

test("changes to one file in several sections apply in order", async () => {
  writeFileSync(join(dir, "list.txt"), "one\ntwo\n")
  const patch = [
    "*** Begin Patch",
    "*** Update File: list.txt",
    "-one",
    "+1",
    "*** Add File: extra.txt",
    "+x",
    "*** Update File: list.txt",
    " 1",
    "-two",
    "+2",
    "*** Update File: extra.txt",
    "-x",
    "+y",
    "*** End Patch",
  ].join("\n")
  expect(await callTool("applyPatch", patch, context())).toBe("M list.txt\nA extra.txt")
  expect(read("list.txt")).toBe("1\n2\n")
  expect(read("extra.txt")).toBe("y\n")
})

test("a cancelled call changes nothing", async () => {
  writeFileSync(join(dir, "a.txt"), "a\n")
  const controller = new AbortController()
  controller.abort()
  const message = await failure("*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n", context(dir, controller.signal))
  expect(message).toBe("applyPatch: cancelled; no file was changed")
  expect(read("a.txt")).toBe("a\n")
})

test("a long hunk that is not found shows at most 30 of its lines", async () => {
  writeFileSync(join(dir, "big.txt"), "unrelated\n")
  const old = Array.from({ length: 40 }, (_, i) => `-missing line ${i}`)
  const message = await failure(["*** Begin Patch", "*** Update File: big.txt", ...old, "+x"].join("\n"))
  const lines = message.split("\n")
  expect(lines[0]).toBe("applyPatch: big.txt: hunk 1 of 1 did not match; no file was changed.")
  expect(lines[31]).toBe("  missing line 29")
  expect(lines[32]).toBe("  … 10 more lines")
})

test("clanka tool applyPatch runs the tool from the command line", async () => {
  writeFileSync(join(dir, "x.txt"), "a\nb\n")
  const patch = "*** Begin Patch\n*** Update File: x.txt\n a\n-b\n+B\n*** End Patch"
  const bun = join(import.meta.dir, "../../node_modules/.bin/bun")
  const main = join(import.meta.dir, "../../src/cli/main.ts")
  const child = Bun.spawnSync([bun, main, "tool", "applyPatch", JSON.stringify(patch), "-C", dir])
  expect(child.stderr.toString()).toBe("")
  expect(child.stdout.toString()).toBe('"M x.txt"\n')
  expect(child.exitCode).toBe(0)
  expect(read("x.txt")).toBe("a\nB\n")
  expect(existsSync(join(dir, "x.txt"))).toBe(true)
})
