import { afterAll, beforeEach, describe, expect, test } from "bun:test"
import { accessSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join, relative } from "node:path"
import { type SandboxPolicy, UNRESTRICTED } from "../../src/contract.ts"
import { LocalExecutor } from "../../src/executor/local.ts"
import { callTool } from "../../src/tools/registry.ts"
import type { ToolContext } from "../../src/tools/tool.ts"
import { toolContext } from "../support/tool-context.ts"

// /tmp is writable in workspace-write, so a workspace there could not show a write escaping it:
// these tests work in a directory outside /tmp and outside this run's TMPDIR.
function outsideTemp(): string {
  const temps = ["/tmp", tmpdir()].map((path) => realpathSync(path))
  for (const candidate of ["/var/tmp", "/dev/shm", homedir()]) {
    try {
      accessSync(candidate, constants.W_OK)
      const real = realpathSync(candidate)
      if (temps.some((temp) => real === temp || !relative(temp, real).startsWith(".."))) continue
      return real
    } catch {}
  }
  throw new Error("no writable directory outside /tmp for the sandbox write tests")
}

const base = mkdtempSync(join(outsideTemp(), "clanka-write-policy-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))

/** A fresh tree per test: `top` holds the workspace `app` and what is outside it. */
let top: string
let app: string
let n = 0
beforeEach(() => {
  top = join(base, String(n++))
  app = join(top, "app")
  mkdirSync(app, { recursive: true })
})

const WORKSPACE_WRITE: SandboxPolicy = { mode: "workspace-write", network: true, writable: [] }

function context(policy: SandboxPolicy = WORKSPACE_WRITE, directory = app): ToolContext {
  return toolContext(directory, { policy })
}

const call = (name: string, params: unknown, ctx = context()) => callTool(name, params, ctx)

async function refusal(name: string, params: unknown, ctx = context()): Promise<string> {
  try {
    await callTool(name, params, ctx)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error(`${name} succeeded but should have been refused`)
}

const RULE = "the sandbox (workspace-write) allows writes only there, in /tmp and in --writable DIRs"
const outside = (tool: string, shown: string, resolved: string, workspace = app) =>
  `${tool}: ${shown} resolves to ${resolved}, outside the workspace ${workspace}; ${RULE}`
const READ_ONLY = "the sandbox is read-only; run with --sandbox workspace-write to allow writes"

const read = (path: string) => readFileSync(path, "utf8")
const isLink = (path: string) => lstatSync(path).isSymbolicLink()

/** `app/out` is a directory symlink to `top/elsewhere`, outside the workspace. */
function linkedDirectory(): string {
  const elsewhere = join(top, "elsewhere")
  mkdirSync(elsewhere)
  writeFileSync(join(elsewhere, "f.txt"), "outside\n")
  symlinkSync(elsewhere, join(app, "out"))
  return elsewhere
}

/** `app/link.txt` is a symlink to `top/secret.txt`, outside the workspace. */
function linkedFile(): string {
  const secret = join(top, "secret.txt")
  writeFileSync(secret, "secret\n")
  symlinkSync(secret, join(app, "link.txt"))
  return secret
}

describe("workspace-write: writeFile", () => {
  test("refuses ../x and writes nothing", async () => {
    expect(await refusal("writeFile", { path: "../x", content: "x" })).toBe(outside("writeFile", "../x", join(top, "x")))
    expect(existsSync(join(top, "x"))).toBe(false)
  })

  test("refuses an absolute path outside; an existing file there is unchanged", async () => {
    writeFileSync(join(top, "x"), "before\n")
    const path = join(top, "x")
    expect(await refusal("writeFile", { path, content: "after\n" })).toBe(outside("writeFile", path, path))
    expect(read(path)).toBe("before\n")
  })

  test("refuses a path through a symlinked directory that points outside, creating no directory", async () => {
    const elsewhere = linkedDirectory()
    expect(await refusal("writeFile", { path: "out/new.txt", content: "x" })).toBe(
      outside("writeFile", "out/new.txt", join(elsewhere, "new.txt")),
    )
    expect(await refusal("writeFile", { path: "out/deep/er/new.txt", content: "x" })).toBe(
      outside("writeFile", "out/deep/er/new.txt", join(elsewhere, "deep/er/new.txt")),
    )
    expect(await refusal("writeFile", { path: "out/f.txt", content: "changed" })).toBe(outside("writeFile", "out/f.txt", join(elsewhere, "f.txt")))
    expect(existsSync(join(elsewhere, "new.txt"))).toBe(false)
    expect(existsSync(join(elsewhere, "deep"))).toBe(false)
    expect(read(join(elsewhere, "f.txt"))).toBe("outside\n")
  })

  test("refuses a symlink file that points outside (it writes through to the target)", async () => {
    const secret = linkedFile()
    expect(await refusal("writeFile", { path: "link.txt", content: "pwned" })).toBe(outside("writeFile", "link.txt", secret))
    expect(read(secret)).toBe("secret\n")
    expect(isLink(join(app, "link.txt"))).toBe(true)
  })

  test("a dangling symlink pointing outside is replaced by the file, its target never made", async () => {
    symlinkSync(join(top, "planted.txt"), join(app, "dangling.txt"))
    await call("writeFile", { path: "dangling.txt", content: "d" })
    expect(isLink(join(app, "dangling.txt"))).toBe(false)
    expect(read(join(app, "dangling.txt"))).toBe("d")
    symlinkSync(join(top, "planted.txt"), join(app, "dangling2.txt"))
    expect(await call("applyPatch", "*** Begin Patch\n*** Add File: dangling2.txt\n+d\n*** End Patch")).toBe("A dangling2.txt")
    expect(isLink(join(app, "dangling2.txt"))).toBe(false)
    expect(existsSync(join(top, "planted.txt"))).toBe(false)
  })

  test("writes inside the workspace, also by a path that leaves and comes back, or through an inside symlink", async () => {
    await call("writeFile", { path: "sub/a.txt", content: "a" })
    await call("writeFile", { path: "../app/b.txt", content: "b" })
    await call("writeFile", { path: join(app, "c.txt"), content: "c" })
    mkdirSync(join(app, "real"))
    symlinkSync(join(app, "real"), join(app, "alias"))
    await call("writeFile", { path: "alias/d.txt", content: "d" })
    expect([read(join(app, "sub/a.txt")), read(join(app, "b.txt")), read(join(app, "c.txt")), read(join(app, "real/d.txt"))]).toEqual(["a", "b", "c", "d"])
  })

  test("a workspace reached through a symlink is the directory it points to", async () => {
    symlinkSync(app, join(top, "app-link"))
    const ctx = context(WORKSPACE_WRITE, join(top, "app-link"))
    await call("writeFile", { path: "a.txt", content: "a" }, ctx)
    expect(read(join(app, "a.txt"))).toBe("a")
    expect(await refusal("writeFile", { path: "../x", content: "x" }, ctx)).toBe(
      outside("writeFile", "../x", join(top, "x"), join(top, "app-link")),
    )
  })

  test("writes in the temp directory and in /tmp", async () => {
    const inTemp = join(tmpdir(), `clanka-write-policy-${process.pid}.txt`)
    const inSlashTmp = `/tmp/clanka-write-policy-${process.pid}-${n}.txt`
    try {
      await call("writeFile", { path: inTemp, content: "temp" })
      await call("writeFile", { path: inSlashTmp, content: "tmp" })
      expect([read(inTemp), read(inSlashTmp)]).toEqual(["temp", "tmp"])
    } finally {
      rmSync(inTemp, { force: true })
      rmSync(inSlashTmp, { force: true })
    }
  })

  test("a temp directory outside /tmp (TMPDIR) is writable and named in the message", async () => {
    const temp = join(top, "temp")
    mkdirSync(temp)
    const saved = process.env.TMPDIR
    process.env.TMPDIR = temp
    try {
      await call("writeFile", { path: join(temp, "a.txt"), content: "a" })
      expect(read(join(temp, "a.txt"))).toBe("a")
      expect(await refusal("writeFile", { path: "../x", content: "x" })).toBe(
        `writeFile: ../x resolves to ${join(top, "x")}, outside the workspace ${app}; the sandbox (workspace-write) allows writes only there, in /tmp, ${temp} and in --writable DIRs`,
      )
    } finally {
      process.env.TMPDIR = saved
    }
  })

  test("writes in a --writable root, also one named through a symlink or not made yet", async () => {
    mkdirSync(join(top, "extra"))
    symlinkSync(join(top, "extra"), join(top, "extra-link"))
    const ctx = context({ mode: "workspace-write", network: false, writable: [join(top, "extra-link"), join(top, "later")] })
    await call("writeFile", { path: "../extra/a.txt", content: "a" }, ctx)
    await call("writeFile", { path: join(top, "later/b.txt"), content: "b" }, ctx)
    expect([read(join(top, "extra/a.txt")), read(join(top, "later/b.txt"))]).toEqual(["a", "b"])
    expect(await refusal("writeFile", { path: "../x", content: "x" }, ctx)).toBe(outside("writeFile", "../x", join(top, "x")))
  })

  test("reads stay allowed everywhere", async () => {
    writeFileSync(join(top, "x"), "outside\n")
    expect(await call("readFile", { path: "../x" })).toBe("outside\n")
    expect(await call("ls", "..")).toEqual(["app/", "x"])
  })
})

describe("workspace-write: removeFile", () => {
  test("refuses ../x, an absolute path and a path through a symlinked directory; the files stay", async () => {
    writeFileSync(join(top, "x"), "x")
    const elsewhere = linkedDirectory()
    expect(await refusal("removeFile", "../x")).toBe(outside("removeFile", "../x", join(top, "x")))
    expect(await refusal("removeFile", join(top, "x"))).toBe(outside("removeFile", join(top, "x"), join(top, "x")))
    expect(await refusal("removeFile", "out/f.txt")).toBe(outside("removeFile", "out/f.txt", join(elsewhere, "f.txt")))
    expect(existsSync(join(top, "x"))).toBe(true)
    expect(existsSync(join(elsewhere, "f.txt"))).toBe(true)
  })

  test("removes a symlink inside that points outside: the link goes, its target stays", async () => {
    const secret = linkedFile()
    await call("removeFile", "link.txt")
    expect(existsSync(join(app, "link.txt"))).toBe(false)
    expect(read(secret)).toBe("secret\n")
  })

  test("refuses a symlink outside that points inside: the link is what would go", async () => {
    writeFileSync(join(app, "a.txt"), "a")
    symlinkSync(join(app, "a.txt"), join(top, "link-in"))
    expect(await refusal("removeFile", "../link-in")).toBe(outside("removeFile", "../link-in", join(top, "link-in")))
    expect(isLink(join(top, "link-in"))).toBe(true)
  })

  test("removes inside the workspace", async () => {
    writeFileSync(join(app, "a.txt"), "a")
    await call("removeFile", "a.txt")
    expect(existsSync(join(app, "a.txt"))).toBe(false)
  })
})

describe("workspace-write: renameFile", () => {
  test("refuses a target outside (../../g, absolute, through a symlinked directory); the source stays", async () => {
    writeFileSync(join(app, "a.txt"), "a")
    const elsewhere = linkedDirectory()
    expect(await refusal("renameFile", { from: "a.txt", to: "../../g" })).toBe(outside("renameFile", "../../g", join(base, "g")))
    expect(await refusal("renameFile", { from: "a.txt", to: join(top, "g") })).toBe(outside("renameFile", join(top, "g"), join(top, "g")))
    expect(await refusal("renameFile", { from: "a.txt", to: "out/g" })).toBe(outside("renameFile", "out/g", join(elsewhere, "g")))
    expect(read(join(app, "a.txt"))).toBe("a")
    expect([existsSync(join(base, "g")), existsSync(join(top, "g")), existsSync(join(elsewhere, "g"))]).toEqual([false, false, false])
  })

  test("refuses a source outside; it stays where it is", async () => {
    writeFileSync(join(top, "x"), "x")
    expect(await refusal("renameFile", { from: "../x", to: "x" })).toBe(outside("renameFile", "../x", join(top, "x")))
    expect(existsSync(join(top, "x"))).toBe(true)
    expect(existsSync(join(app, "x"))).toBe(false)
  })

  test("refuses moving the workspace itself", async () => {
    expect(await refusal("renameFile", { from: ".", to: "sub/moved" })).toBe(
      `renameFile: . resolves to ${app}, a writable root itself, not a path inside one; the sandbox (workspace-write) allows writes only inside the workspace ${app}, in /tmp and in --writable DIRs`,
    )
    expect(existsSync(app)).toBe(true)
  })

  test("moves symlinks as links: one pointing outside may move, one inside may be replaced", async () => {
    const secret = linkedFile()
    await call("renameFile", { from: "link.txt", to: "moved-link.txt" })
    expect(isLink(join(app, "moved-link.txt"))).toBe(true)
    writeFileSync(join(app, "a.txt"), "a")
    await call("renameFile", { from: "a.txt", to: "moved-link.txt" })
    expect(isLink(join(app, "moved-link.txt"))).toBe(false)
    expect(read(join(app, "moved-link.txt"))).toBe("a")
    expect(read(secret)).toBe("secret\n")
  })

  test("renames inside the workspace and into /tmp's temp directory", async () => {
    writeFileSync(join(app, "a.txt"), "a")
    await call("renameFile", { from: "a.txt", to: "sub/b.txt" })
    expect(read(join(app, "sub/b.txt"))).toBe("a")
    const inTemp = join(tmpdir(), `clanka-write-policy-rename-${process.pid}.txt`)
    try {
      await call("renameFile", { from: "sub/b.txt", to: inTemp })
      expect(read(inTemp)).toBe("a")
    } finally {
      rmSync(inTemp, { force: true })
    }
  })
})

describe("workspace-write: applyPatch", () => {
  const NO_CHANGE = "; no file was changed"

  test("refuses *** Add File: ../f", async () => {
    const patch = "*** Begin Patch\n*** Add File: ../f\n+hello\n*** End Patch"
    expect(await refusal("applyPatch", patch)).toBe(outside("applyPatch", "../f", join(top, "f")) + NO_CHANGE)
    expect(existsSync(join(top, "f"))).toBe(false)
  })

  test("is all or nothing: a file inside is not changed when another target is outside", async () => {
    writeFileSync(join(app, "a.txt"), "one\n")
    const patch = ["*** Begin Patch", "*** Update File: a.txt", "@@", "-one", "+two", "*** Add File: ../f", "+hello", "*** Add File: new.txt", "+new", "*** End Patch"].join("\n")
    expect(await refusal("applyPatch", patch)).toBe(outside("applyPatch", "../f", join(top, "f")) + NO_CHANGE)
    expect(read(join(app, "a.txt"))).toBe("one\n")
    expect(existsSync(join(app, "new.txt"))).toBe(false)
    expect(existsSync(join(top, "f"))).toBe(false)
  })

  test("refuses *** Move to: ../../g; the source stays as it was", async () => {
    writeFileSync(join(app, "a.txt"), "one\n")
    const patch = ["*** Begin Patch", "*** Update File: a.txt", "*** Move to: ../../g", "@@", "-one", "+two", "*** End Patch"].join("\n")
    expect(await refusal("applyPatch", patch)).toBe(outside("applyPatch", "../../g", join(base, "g")) + NO_CHANGE)
    expect(read(join(app, "a.txt"))).toBe("one\n")
    expect(existsSync(join(base, "g"))).toBe(false)
  })

  test("refuses moving a file from outside into the workspace", async () => {
    writeFileSync(join(top, "x"), "one\n")
    const patch = ["*** Begin Patch", "*** Update File: ../x", "*** Move to: x", "@@", "-one", "+two", "*** End Patch"].join("\n")
    expect(await refusal("applyPatch", patch)).toBe(outside("applyPatch", "../x", join(top, "x")) + NO_CHANGE)
    expect(read(join(top, "x"))).toBe("one\n")
    expect(existsSync(join(app, "x"))).toBe(false)
  })

  test("refuses a git diff whose +++ b/../x leaves the workspace (it may still read the file)", async () => {
    writeFileSync(join(top, "x"), "one\n")
    const patch = ["diff --git a/../x b/../x", "--- a/../x", "+++ b/../x", "@@ -1 +1 @@", "-one", "+two", ""].join("\n")
    expect(await refusal("applyPatch", patch)).toBe(outside("applyPatch", "../x", join(top, "x")) + NO_CHANGE)
    expect(read(join(top, "x"))).toBe("one\n")
    const added = ["diff --git a/../y b/../y", "new file mode 100644", "--- /dev/null", "+++ b/../y", "@@ -0,0 +1 @@", "+y", ""].join("\n")
    expect(await refusal("applyPatch", added)).toBe(outside("applyPatch", "../y", join(top, "y")) + NO_CHANGE)
    expect(existsSync(join(top, "y"))).toBe(false)
  })

  test("refuses *** Delete File outside and an absolute path outside", async () => {
    writeFileSync(join(top, "x"), "x\n")
    expect(await refusal("applyPatch", "*** Begin Patch\n*** Delete File: ../x\n*** End Patch")).toBe(
      outside("applyPatch", "../x", join(top, "x")) + NO_CHANGE,
    )
    const path = join(top, "abs.txt")
    expect(await refusal("applyPatch", `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch`)).toBe(outside("applyPatch", path, path) + NO_CHANGE)
    expect(existsSync(join(top, "x"))).toBe(true)
    expect(existsSync(path)).toBe(false)
  })

  test("refuses targets through a symlinked directory and a symlink file that point outside", async () => {
    const elsewhere = linkedDirectory()
    const secret = linkedFile()
    expect(await refusal("applyPatch", "*** Begin Patch\n*** Add File: out/n.txt\n+x\n*** End Patch")).toBe(
      outside("applyPatch", "out/n.txt", join(elsewhere, "n.txt")) + NO_CHANGE,
    )
    const update = ["*** Begin Patch", "*** Update File: link.txt", "@@", "-secret", "+pwned", "*** End Patch"].join("\n")
    expect(await refusal("applyPatch", update)).toBe(outside("applyPatch", "link.txt", secret) + NO_CHANGE)
    expect(existsSync(join(elsewhere, "n.txt"))).toBe(false)
    expect(read(secret)).toBe("secret\n")
  })

  test("deletes a symlink inside that points outside, not its target", async () => {
    const secret = linkedFile()
    expect(await call("applyPatch", "*** Begin Patch\n*** Delete File: link.txt\n*** End Patch")).toBe("D link.txt")
    expect(existsSync(join(app, "link.txt"))).toBe(false)
    expect(read(secret)).toBe("secret\n")
  })

  test("applies inside the workspace and in the temp directory", async () => {
    writeFileSync(join(app, "a.txt"), "one\n")
    const inTemp = join(tmpdir(), `clanka-write-policy-patch-${process.pid}.txt`)
    try {
      const patch = ["*** Begin Patch", "*** Update File: a.txt", "@@", "-one", "+two", `*** Add File: ${inTemp}`, "+t", "*** End Patch"].join("\n")
      expect(await call("applyPatch", patch)).toBe(`M a.txt\nA ${inTemp}`)
      expect([read(join(app, "a.txt")), read(inTemp)]).toEqual(["two\n", "t\n"])
    } finally {
      rmSync(inTemp, { force: true })
    }
  })
})

describe("read-only", () => {
  const READ_ONLY_POLICY: SandboxPolicy = { mode: "read-only", network: false, writable: [] }
  const ctx = () => context(READ_ONLY_POLICY)

  test("refuses every write, also in /tmp's temp directory, and writes nothing", async () => {
    writeFileSync(join(app, "a.txt"), "one\n")
    const inTemp = join(tmpdir(), `clanka-write-policy-ro-${process.pid}.txt`)
    expect(await refusal("writeFile", { path: "b.txt", content: "b" }, ctx())).toBe(`writeFile: cannot write b.txt: ${READ_ONLY}`)
    try {
      expect(await refusal("writeFile", { path: inTemp, content: "b" }, ctx())).toBe(`writeFile: cannot write ${inTemp}: ${READ_ONLY}`)
      expect(existsSync(inTemp)).toBe(false)
    } finally {
      rmSync(inTemp, { force: true })
    }
    expect(await refusal("removeFile", "a.txt", ctx())).toBe(`removeFile: cannot remove a.txt: ${READ_ONLY}`)
    expect(await refusal("renameFile", { from: "a.txt", to: "c.txt" }, ctx())).toBe(`renameFile: cannot rename a.txt: ${READ_ONLY}`)
    const patch = ["*** Begin Patch", "*** Update File: a.txt", "@@", "-one", "+two", "*** End Patch"].join("\n")
    expect(await refusal("applyPatch", patch, ctx())).toBe(`applyPatch: cannot write a.txt: ${READ_ONLY}; no file was changed`)
    expect(await refusal("applyPatch", "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch", ctx())).toBe(
      `applyPatch: cannot delete a.txt: ${READ_ONLY}; no file was changed`,
    )
    expect(read(join(app, "a.txt"))).toBe("one\n")
    expect([existsSync(join(app, "b.txt")), existsSync(join(app, "c.txt"))]).toEqual([false, false])
  })

  test("reads, lists and globs as before", async () => {
    writeFileSync(join(app, "a.txt"), "one\n")
    writeFileSync(join(top, "x"), "outside\n")
    expect(await call("readFile", { path: "a.txt" }, ctx())).toBe("one\n")
    expect(await call("readFile", { path: "../x" }, ctx())).toBe("outside\n")
    expect(await call("ls", ".", ctx())).toEqual(["a.txt"])
    expect(await call("glob", "*.txt", ctx())).toEqual(["a.txt"])
  })
})

describe("off", () => {
  test("writes, removes, renames and patches outside the workspace as before", async () => {
    const ctx = context(UNRESTRICTED)
    await call("writeFile", { path: "../x", content: "x" }, ctx)
    expect(read(join(top, "x"))).toBe("x")
    await call("renameFile", { from: "../x", to: "../y" }, ctx)
    expect(read(join(top, "y"))).toBe("x")
    await call("removeFile", "../y", ctx)
    expect(existsSync(join(top, "y"))).toBe(false)
    expect(await call("applyPatch", "*** Begin Patch\n*** Add File: ../f\n+f\n*** End Patch", ctx)).toBe("A ../f")
    expect(read(join(top, "f"))).toBe("f\n")
  })
})

test("a script run by a LocalExecutor in workspace-write cannot write outside its directory", async () => {
  const executor = new LocalExecutor({ directory: app, policy: { mode: "workspace-write", network: true, writable: [] } })
  try {
    const script = [
      `await writeFile({ path: "inside.txt", content: "in" })`,
      `try { await writeFile({ path: "../escape.txt", content: "out" }) } catch (error) { console.log(error.message) }`,
      `try { await applyPatch("*** Begin Patch\\n*** Add File: ../escape.txt\\n+out\\n*** End Patch") } catch (error) { console.log(error.message) }`,
      `console.log(await readFile({ path: "inside.txt" }))`,
    ].join("\n")
    let output = ""
    for await (const text of executor.execute({ script, onTaskComplete: () => {}, onSubagent: async () => "" })) output += text
    expect(output).toBe(
      [
        outside("writeFile", "../escape.txt", join(top, "escape.txt")),
        outside("applyPatch", "../escape.txt", join(top, "escape.txt")) + "; no file was changed",
        "in",
        "",
      ].join("\n"),
    )
    expect(existsSync(join(top, "escape.txt"))).toBe(false)
  } finally {
    await executor.close()
  }
})
