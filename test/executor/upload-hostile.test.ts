// The upload's conversation with a host that lies: the "ssh" here is a shell script playing the
// host's half (upload.ts RECEIVE), so no sshd or build is needed.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { uploadSelf } from "../../src/executor/upload.ts"

let dir: string
let self: string
const savedCache = process.env.XDG_CACHE_HOME

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "clanka-upload-hostile-"))
  self = join(dir, "clanka")
  writeFileSync(self, "not really clanka\n")
  // This binary's remembered SHA-256 goes to the test's cache, not the user's.
  process.env.XDG_CACHE_HOME = join(dir, "cache")
})
afterAll(() => {
  process.env.XDG_CACHE_HOME = savedCache
  rmSync(dir, { recursive: true, force: true })
})

/** An "ssh" whose far side is `script` (the remote command clanka appends is its $1, ignored). */
function fakeHost(script: string): string[] {
  return ["sh", "-c", script, "fake-ssh"]
}

const UNAME = process.arch === "arm64" ? "Linux aarch64" : "Linux x86_64"

test.skipIf(process.platform !== "linux")("the host's reply reaches the terminal without its escape sequences", async () => {
  let progress = ""
  await uploadSelf({
    host: "box",
    remoteBin: "clanka",
    self,
    ssh: fakeHost(`echo '${UNAME}'; read -r name sum size; echo 'missing plain'; read -r how; cat >/dev/null; printf 'installed /c/\\033]0;PWNED\\007/clanka\\n'`),
    progress: { write: (text: string) => (progress += text) },
  })
  expect(progress).not.toContain("\x1b")
  expect(progress).toContain("clanka: copied to box:/c/^[]0;PWNED^G/clanka in ")
})
