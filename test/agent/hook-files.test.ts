// The files a hook command names are watched: a hook whose file changed since the start is not run.
import { expect, test } from "bun:test"
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileGuard } from "../../src/agent/hook-files.ts"
import { temporaryDirectory } from "../support/temp.ts"

test("a named file that is written, replaced, swapped for a link or made where there was none is reported; a redirection's target and a directory are not", () => {
  const dir = temporaryDirectory("clanka-hook-files-")
  mkdirSync(join(dir, "bin"))
  writeFileSync(join(dir, "bin", "a.sh"), "exit 0\n")
  writeFileSync(join(dir, "check.js"), "")
  writeFileSync(join(dir, "audit.log"), "")
  const written = fileGuard("./bin/a.sh", dir)
  const replaced = fileGuard("node check.js --strict", dir)
  const made = fileGuard("sh bin/later.sh", dir)
  const linked = fileGuard(`${join(dir, "bin", "a.sh")} x`, dir)
  const log = fileGuard("cat >> audit.log; echo done 2> audit.log", dir)
  const tree = fileGuard("prettier --write bin/ ./bin", dir)
  for (const guard of [written, replaced, made, linked, log, tree]) expect(guard()).toBeUndefined()

  writeFileSync(join(dir, "audit.log"), "more\n")
  expect(log()).toBeUndefined()
  writeFileSync(join(dir, "bin", "new.sh"), "")
  expect(tree()).toBeUndefined()
  writeFileSync(join(dir, "bin", "later.sh"), "evil\n")
  expect(made()).toBe("bin/later.sh")
  writeFileSync(join(dir, "check.evil"), "evil\n")
  renameSync(join(dir, "check.evil"), join(dir, "check.js"))
  expect(replaced()).toBe("check.js")
  renameSync(join(dir, "bin", "a.sh"), join(dir, "bin", "b.sh"))
  symlinkSync(join(dir, "bin", "b.sh"), join(dir, "bin", "a.sh"))
  expect(linked()).toBe(join(dir, "bin", "a.sh"))
  expect(written()).toBe("./bin/a.sh")
})
