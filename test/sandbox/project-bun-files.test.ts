// A repository's .env files and bunfig.toml are Bun's, not clanka's, tried as a hostile repository
// would: its executor starts in the workspace, and Bun reads both from the directory it starts in
// unless told not to. A .env would add variables to what scripts and their commands see, and
// bunfig.toml's preload would run the repository's code in the executor. (The compiled binary, as
// an agent started in such a repository too, is tried in test/cli/binary.test.ts.)
import { describe, expect, test } from "bun:test"
import { readdirSync } from "node:fs"
import { clanka } from "../support/cli.ts"
import { hostileBunFiles, PROBE_SCRIPT } from "../support/hostile-bun-files.ts"
import { BACKENDS } from "../support/sandbox-backends.ts"
import { temporaryDirectory } from "../support/temp.ts"

for (const backend of BACKENDS) describe.skipIf(!backend.available)(`a workspace's .env and bunfig.toml (${backend.name})`, () => {
  const project = temporaryDirectory("clanka-bun-files-")
  const files = hostileBunFiles(project)
  test("the executor reads neither: its commands see no variable of theirs, and no preload ran", async () => {
    const result = await clanka(["exec", "-C", project, "-e", PROBE_SCRIPT], { env: backend.env })
    expect(result).toEqual({ code: 0, stdout: "unset unset\n", stderr: "" })
    expect(readdirSync(project).sort()).toEqual(files)
  })
})
