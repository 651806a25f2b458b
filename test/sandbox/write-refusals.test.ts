// Writes that the tools' own policy lets through but the OS sandbox refuses (a credential store it
// hides inside the workspace), and moves onto another file system (the sandbox's private /tmp): every
// write tool says the same clear thing, naming the path and the flag, never a failed clean-up of a
// temporary file or a cross-device link error. Real bubblewrap, through the real CLI.
import { afterAll, beforeEach, describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { osSandboxWorks } from "../../src/executor/os-sandbox.ts"
import { clanka } from "../support/cli.ts"

const available = osSandboxWorks()
if (!available && process.env.CI) throw new Error("bwrap is missing or cannot create namespaces; .ci/run installs bubblewrap")

// Outside /tmp, whose sandbox copy is private.
const root = mkdtempSync("/var/tmp/clanka-write-refusals-")
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The workspace is the home directory, as when clanka runs in ~: its ~/.ssh and ~/.netrc are hidden. */
let home: string
let n = 0
beforeEach(() => {
  home = join(root, `home${n++}`)
  mkdirSync(join(home, ".ssh"), { recursive: true })
  writeFileSync(join(home, ".ssh", "known_hosts"), "host\n")
  writeFileSync(join(home, ".netrc"), "machine x\n")
  writeFileSync(join(home, "notes.txt"), "notes\n")
  mkdirSync(join(home, "dir"))
  writeFileSync(join(home, "dir", "inner.txt"), "inner\n")
})

const exec = (script: string, ...flags: string[]) => clanka(["exec", "-C", home, ...flags, "-e", script], { env: { HOME: home, XDG_CONFIG_HOME: join(home, ".xdg") } })

/** Each attempt prints its error message (or `ok`), one line each. */
const attempts = (calls: string[]) => calls.map((call) => `try { await ${call}; console.log("ok") } catch (error) { console.log(error.message) }`).join("\n")

describe.skipIf(!available)("a write the OS sandbox refuses", () => {
  test("every write tool names the path and the flag", async () => {
    const result = await exec(
      attempts([
        `writeFile({ path: ".ssh/config", content: "x" })`,
        `writeFile({ path: ".ssh/new/key", content: "x" })`,
        `applyPatch("*** Begin Patch\\n*** Add File: .ssh/added\\n+x\\n*** End Patch")`,
        `renameFile({ from: "notes.txt", to: ".ssh/notes.txt" })`,
        `writeFile({ path: ".netrc", content: "x" })`,
        `removeFile(".netrc")`,
        `applyPatch("*** Begin Patch\\n*** Delete File: .netrc\\n*** End Patch")`,
      ]),
    )
    const ssh = `${join(home, ".ssh")} is a credential store, which the sandbox hides from scripts (empty and read-only); run with --readable ${join(home, ".ssh")} to leave it as it is, or --sandbox off`
    const netrc = `${join(home, ".netrc")} is a credential store, which the sandbox hides from scripts (empty and read-only); run with --readable ${join(home, ".netrc")} to leave it as it is, or --sandbox off`
    expect(result).toEqual({
      code: 0,
      stderr: "",
      stdout: [
        `writeFile: cannot write .ssh/config: ${ssh}`,
        `writeFile: cannot write .ssh/new/key: ${ssh}`,
        `applyPatch: could not write .ssh/added: ${ssh}; no file was changed`,
        `renameFile: cannot rename notes.txt to .ssh/notes.txt: ${ssh}`,
        `writeFile: cannot write .netrc: ${netrc}`,
        `removeFile: cannot remove .netrc: ${netrc}`,
        `applyPatch: could not delete ${join(home, ".netrc")}: ${netrc}; the other changes were written`,
        "",
      ].join("\n"),
    })
    // Nothing moved, nothing left behind.
    expect(readFileSync(join(home, "notes.txt"), "utf8")).toBe("notes\n")
    expect(readFileSync(join(home, ".netrc"), "utf8")).toBe("machine x\n")
    expect(existsSync(join(home, ".ssh", "config"))).toBe(false)

    // The flag named does it.
    const allowed = await exec(attempts([`writeFile({ path: ".ssh/config", content: "x" })`, `writeFile({ path: ".netrc", content: "y" })`]), "--readable", join(home, ".ssh"), "--readable", join(home, ".netrc"))
    expect(allowed).toEqual({ code: 0, stdout: "ok\nok\n", stderr: "" })
    expect(readFileSync(join(home, ".ssh", "config"), "utf8")).toBe("x")
    expect(readFileSync(join(home, ".netrc"), "utf8")).toBe("y")
  })

  test("renameFile moves files and directories onto the sandbox's /tmp, another file system, as mv does", async () => {
    const script = [
      `await renameFile({ from: "notes.txt", to: "/tmp/moved/notes.txt" })`,
      `await renameFile({ from: "dir", to: "/tmp/moved/dir" })`,
      `console.log(await readFile({ path: "/tmp/moved/notes.txt" }), await readFile({ path: "/tmp/moved/dir/inner.txt" }), JSON.stringify(await ls(".")))`,
    ].join("\n")
    const result = await exec(script)
    expect(result).toEqual({ code: 0, stdout: 'notes\n inner\n [".netrc",".ssh/"]\n', stderr: "" })
    expect(existsSync(join(home, "notes.txt"))).toBe(false)
    expect(existsSync(join(home, "dir"))).toBe(false)
  })
})
