import { afterAll, beforeEach, describe, expect, test } from "bun:test"
import { linkSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, mkdirSync, chmodSync, existsSync, truncateSync, chownSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { callTool } from "../../src/tools/registry.ts"
import type { ToolContext } from "../../src/tools/tool.ts"
import { toolContext } from "../support/tool-context.ts"

const root = mkdtempSync(join(tmpdir(), "clanka-fs-"))
let dir: string
let ctx: ToolContext
let n = 0

beforeEach(() => {
  dir = join(root, String(n++))
  mkdirSync(dir)
  ctx = toolContext(dir)
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const call = (name: string, params: unknown) => callTool(name, params, ctx)

describe("readFile", () => {
  test("reads a whole file relative to the directory", async () => {
    writeFileSync(join(dir, "a.txt"), "one\ntwo\nthree\n")
    expect(await call("readFile", { path: "a.txt" })).toBe("one\ntwo\nthree\n")
  })
  test("accepts absolute paths", async () => {
    writeFileSync(join(dir, "a.txt"), "x")
    expect(await call("readFile", { path: join(dir, "a.txt") })).toBe("x")
  })
  test("returns null for a missing file, also below a missing directory", async () => {
    expect(await call("readFile", { path: "nope.txt" })).toBeNull()
    expect(await call("readFile", { path: "no/such/dir.txt" })).toBeNull()
  })
  test("returns lines startLine..endLine inclusive, keeping their line endings", async () => {
    writeFileSync(join(dir, "a.txt"), "1\n2\n3\n4\n5")
    expect(await call("readFile", { path: "a.txt", startLine: 2, endLine: 3 })).toBe("2\n3\n")
    expect(await call("readFile", { path: "a.txt", startLine: 4 })).toBe("4\n5")
    expect(await call("readFile", { path: "a.txt", endLine: 1 })).toBe("1\n")
    expect(await call("readFile", { path: "a.txt", startLine: 5, endLine: 99 })).toBe("5")
    expect(await call("readFile", { path: "a.txt", startLine: 9 })).toBe("")
  })
  test("rejects an inverted or non-positive range", async () => {
    writeFileSync(join(dir, "a.txt"), "1\n2\n")
    await expect(call("readFile", { path: "a.txt", startLine: 3, endLine: 2 })).rejects.toThrow("readFile: endLine 2 is before startLine 3")
    await expect(call("readFile", { path: "a.txt", startLine: 0 })).rejects.toThrow("readFile: invalid parameters: startLine:")
  })
  test("names a directory as such", async () => {
    mkdirSync(join(dir, "src"))
    await expect(call("readFile", { path: "src" })).rejects.toThrow('readFile: src is a directory; use ls("src")')
  })
  test("refuses a binary file rather than decode it into replacement characters", async () => {
    writeFileSync(join(dir, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]))
    await expect(call("readFile", { path: "logo.png" })).rejects.toThrow(
      "readFile: logo.png is not UTF-8 text (binary file, 12 bytes); use bash to inspect it",
    )
  })
  test("refuses a binary file whose bytes happen to be valid UTF-8 (NUL bytes)", async () => {
    // UTF-16 text without a BOM: every other byte is NUL, and it came back as "h\u0000i\u0000…".
    writeFileSync(join(dir, "notes.txt"), Buffer.from("hi\n", "utf16le"))
    await expect(call("readFile", { path: "notes.txt" })).rejects.toThrow(
      "readFile: notes.txt is not UTF-8 text (binary file, 6 bytes); use bash to inspect it",
    )
  })
  test("refuses text in another encoding, which writing back would corrupt", async () => {
    writeFileSync(join(dir, "latin1.txt"), Buffer.from("caf\xe9\n", "latin1"))
    await expect(call("readFile", { path: "latin1.txt", startLine: 1, endLine: 1 })).rejects.toThrow(
      "readFile: latin1.txt is not UTF-8 text (invalid UTF-8, 5 bytes); use bash to inspect it",
    )
  })
  test("refuses a file too large to read whole instead of answering an empty string", async () => {
    // Past 2 GiB the text decoder answered "" and readFile returned it as the file's text.
    writeFileSync(join(dir, "big.log"), "x\n")
    truncateSync(join(dir, "big.log"), 2 ** 31)
    await expect(call("readFile", { path: "big.log", startLine: 1, endLine: 1 })).rejects.toThrow(
      "readFile: big.log: the file is 2.0 GiB, more than the 256 MiB read at once; use bash (head, tail, sed -n) to read part of it",
    )
  })
  test("reads UTF-8 with a byte order mark as it is, the mark included", async () => {
    writeFileSync(join(dir, "bom.txt"), "\uFEFFhéllo ✅\n")
    expect(await call("readFile", { path: "bom.txt" })).toBe("\uFEFFhéllo ✅\n")
  })
})

describe("writeFile", () => {
  test("creates parent directories and writes exact content", async () => {
    await call("writeFile", { path: "deep/er/b.txt", content: "héllo\n`x`" })
    expect(readFileSync(join(dir, "deep/er/b.txt"), "utf8")).toBe("héllo\n`x`")
  })
  test("overwrites atomically, leaving no temporary file and keeping the mode", async () => {
    const file = join(dir, "run.sh")
    writeFileSync(file, "old")
    chmodSync(file, 0o755)
    await call("writeFile", { path: "run.sh", content: "#!/bin/sh\necho new\n" })
    expect(readFileSync(file, "utf8")).toBe("#!/bin/sh\necho new\n")
    expect(statSync(file).mode & 0o777).toBe(0o755)
    expect(readdirSync(dir)).toEqual(["run.sh"])
  })
  test("replaces the file rather than rewriting it in place: a hard link to it keeps the old content", async () => {
    // A reader holding the old file never sees a half-written one: temp + rename swaps the
    // directory entry, so the other name still points at the old bytes.
    writeFileSync(join(dir, "a.txt"), "old\n")
    linkSync(join(dir, "a.txt"), join(dir, "before.txt"))
    await call("writeFile", { path: "a.txt", content: "new\n" })
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("new\n")
    expect(readFileSync(join(dir, "before.txt"), "utf8")).toBe("old\n")
    expect(readdirSync(dir).sort()).toEqual(["a.txt", "before.txt"])
  })
  test.skipIf(process.getuid?.() !== 0)("run as root, keeps the owner of the file it rewrites", async () => {
    writeFileSync(join(dir, "a.txt"), "old\n")
    chownSync(join(dir, "a.txt"), 1234, 5678)
    await call("writeFile", { path: "a.txt", content: "new\n" })
    expect(statSync(join(dir, "a.txt"))).toMatchObject({ uid: 1234, gid: 5678 })
  })
  test("writes through a symlink: the target changes and the link stays a link", async () => {
    writeFileSync(join(dir, "real.txt"), "old\n")
    symlinkSync("real.txt", join(dir, "link.txt"))
    await call("writeFile", { path: "link.txt", content: "new\n" })
    expect(readFileSync(join(dir, "real.txt"), "utf8")).toBe("new\n")
    expect(lstatSync(join(dir, "link.txt")).isSymbolicLink()).toBe(true)
    expect(readdirSync(dir).sort()).toEqual(["link.txt", "real.txt"])
  })
  test("refuses to replace a directory", async () => {
    mkdirSync(join(dir, "d"))
    await expect(call("writeFile", { path: "d", content: "x" })).rejects.toThrow("writeFile: d is a directory")
  })
  test("refuses a path ending in a slash and creates nothing", async () => {
    await expect(call("writeFile", { path: "d/", content: "x" })).rejects.toThrow(
      'writeFile: d/ ends with "/", which names a directory; give the path of a file',
    )
    expect(readdirSync(dir)).toEqual([])
  })
  test("says when a file is in the way of the parent directory", async () => {
    writeFileSync(join(dir, "f"), "")
    await expect(call("writeFile", { path: "f/x.txt", content: "x" })).rejects.toThrow(
      "writeFile: cannot create the parent directory of f/x.txt: a file is in the way",
    )
  })
})

describe("removeFile and renameFile", () => {
  test("removeFile removes a symlink to a directory, not the directory", async () => {
    mkdirSync(join(dir, "src"))
    writeFileSync(join(dir, "src/a.ts"), "x")
    symlinkSync("src", join(dir, "link"))
    await call("removeFile", "link")
    expect(readdirSync(dir)).toEqual(["src"])
    expect(readdirSync(join(dir, "src"))).toEqual(["a.ts"])
  })
  test("removeFile deletes a file", async () => {
    writeFileSync(join(dir, "a"), "")
    await call("removeFile", "a")
    expect(existsSync(join(dir, "a"))).toBe(false)
  })
  test("removeFile reports a missing file and refuses directories", async () => {
    mkdirSync(join(dir, "d"))
    await expect(call("removeFile", "gone.txt")).rejects.toThrow("removeFile: gone.txt does not exist")
    await expect(call("removeFile", "d")).rejects.toThrow('removeFile: d is a directory; use bash({ command: "rm -r d" })')
  })
  test("renameFile moves into new parent directories", async () => {
    writeFileSync(join(dir, "a.txt"), "content")
    await call("renameFile", { from: "a.txt", to: "x/y/b.txt" })
    expect(existsSync(join(dir, "a.txt"))).toBe(false)
    expect(readFileSync(join(dir, "x/y/b.txt"), "utf8")).toBe("content")
  })
  test("renameFile onto a directory or into itself says why in words, and moves nothing", async () => {
    writeFileSync(join(dir, "a.txt"), "a")
    mkdirSync(join(dir, "empty"))
    mkdirSync(join(dir, "full/x"), { recursive: true })
    const refused = (from: string, to: string) => call("renameFile", { from, to }).then(() => "moved", (error: Error) => error.message)
    expect(await refused("a.txt", "empty")).toBe("renameFile: cannot move a.txt to empty: the target is a directory; give the file's full new path")
    expect(await refused("empty", "full")).toBe("renameFile: cannot move empty to full: the target is a directory that is not empty")
    expect(await refused("empty", "a.txt")).toBe("renameFile: cannot move empty to a.txt: the target is a file and the source a directory")
    expect(await refused("full", "full/x/full")).toBe("renameFile: cannot move full to full/x/full: a directory cannot move into itself")
    expect(readdirSync(dir).sort()).toEqual(["a.txt", "empty", "full"])
  })
  test("renameFile reports a missing source", async () => {
    await expect(call("renameFile", { from: "nope", to: "b" })).rejects.toThrow("renameFile: nope does not exist")
  })
})

describe("a name whose accents are written another way (NFC vs NFD)", () => {
  test("reads, writes and removes the file that is there instead of answering null or making a twin", async () => {
    const nfd = "cafe\u0301.md"
    writeFileSync(join(dir, nfd), "old\n")
    expect(await call("readFile", { path: "caf\u00e9.md" })).toBe("old\n")
    await call("writeFile", { path: "caf\u00e9.md", content: "new\n" })
    expect(readdirSync(dir)).toEqual([nfd])
    expect(readFileSync(join(dir, nfd), "utf8")).toBe("new\n")
    await call("removeFile", "caf\u00e9.md")
    expect(readdirSync(dir)).toEqual([])
  })
})

describe("an empty path", () => {
  test("is refused by every file tool, saying so", async () => {
    writeFileSync(join(dir, "a.txt"), "x")
    await expect(call("readFile", { path: "" })).rejects.toThrow(/^readFile: path is empty$/)
    await expect(call("writeFile", { path: "", content: "x" })).rejects.toThrow(/^writeFile: path is empty$/)
    await expect(call("removeFile", "")).rejects.toThrow(/^removeFile: path is empty$/)
    await expect(call("renameFile", { from: "", to: "b.txt" })).rejects.toThrow(/^renameFile: from is empty$/)
    await expect(call("renameFile", { from: "a.txt", to: "" })).rejects.toThrow(/^renameFile: to is empty$/)
    await expect(call("ls", "")).rejects.toThrow(/^ls: path is empty; use "\." for the working directory$/)
    expect(readdirSync(dir)).toEqual(["a.txt"])
  })
})

describe("ls", () => {
  test("lists sorted names with directories suffixed by /", async () => {
    writeFileSync(join(dir, "b.txt"), "")
    writeFileSync(join(dir, "A.md"), "")
    writeFileSync(join(dir, ".env"), "")
    mkdirSync(join(dir, "src"))
    mkdirSync(join(dir, "src/inner"))
    symlinkSync(join(dir, "src"), join(dir, "link"))
    expect(await call("ls", ".")).toEqual([".env", "A.md", "b.txt", "link/", "src/"])
    expect(await call("ls", "src")).toEqual(["inner/"])
  })
  test("reports a missing directory or a file", async () => {
    writeFileSync(join(dir, "f"), "")
    await expect(call("ls", "missing")).rejects.toThrow("ls: missing does not exist")
    await expect(call("ls", "f")).rejects.toThrow("ls: f is a file, not a directory")
  })
})
