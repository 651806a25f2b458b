// Images over --ssh: readImage reads the file on the far host (it exists only there) and its bytes
// cross the protocol as base64; an MCP server started there, beside the sandboxed executor, has
// its image passed on by the relay. A resumed session reads the remote file again through the
// executor.
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { clanka } from "../support/cli.ts"
import { startFakeModel, type FakeServer } from "../support/fake-model.ts"
import { png } from "../support/images.ts"
import { EVERYTHING, everythingStdio } from "../support/mcp-everything.ts"
import { sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"

const available = sshdAvailable()
let host: SshProject
let server: FakeServer | undefined
setDefaultTimeout(60_000)

// Large enough to take several reads of the protocol's stream, and differing byte to byte.
const FAR = png(300, 200, 77)

beforeAll(async () => {
  if (!available) return
  host = await startSshProject("clanka-images-ssh-", { "README.md": "remote\n" })
  writeFileSync(join(host.remoteDir, "far.png"), FAR)
  writeFileSync(join(host.local, ".mcp.json"), JSON.stringify({ mcpServers: { everything: everythingStdio } }))
})

afterAll(async () => {
  if (available) await host.stop()
})

afterEach(async () => {
  await server?.close()
  server = undefined
})

test.skipIf(!available)("readImage and an MCP tool's image over --ssh reach the model; a resume reads the far file again", async () => {
  const { MCP_TINY_IMAGE } = await import(join(dirname(EVERYTHING), "tools/get-tiny-image.js"))
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: 'await readImage({ path: "far.png" }); await mcp.everything.get_tiny_image()' }] },
    { blocks: [{ type: "execute", script: 'await taskComplete("seen")' }] },
    { blocks: [{ type: "execute", script: 'await taskComplete("again")' }] },
  ])
  const env = { ...host.env, ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", XDG_CONFIG_HOME: join(host.local, ".xdg"), CLANKA_TRUST_PROJECT: "1", CLANKA_HOME: join(host.local, ".state") }
  const ssh = ["--ssh", host.target, "--remote-bin", host.remoteBin]
  const result = await clanka(["run", "--json", ...ssh, "look"], { cwd: host.local, env })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const images = server.requests[1]!.images
  expect(images).toEqual([
    { in: "tool", mediaType: "image/png", data: FAR.toString("base64") },
    { in: "tool", mediaType: "image/png", data: MCP_TINY_IMAGE },
  ])
  expect(server.requests[1]!.toolResults[0]).toBe(
    `[image shown after this output: ${join(host.remoteDir, "far.png")} (300×200 PNG)]\n[image shown after this output: the image of mcp.everything.get_tiny_image (20×20 PNG)]`,
  )

  // The remote file is read again through the executor; the MCP tool's image, which has no file, is a line.
  const id = JSON.parse(result.stdout.split("\n")[0]!).sessionId
  const resumed = await clanka(["run", "--json", "--resume", id, "--remote-bin", host.remoteBin, "again"], { cwd: host.local, env })
  expect(resumed.stderr).toBe("")
  expect(resumed.code).toBe(0)
  expect(server.requests[2]!.images).toEqual([{ in: "tool", mediaType: "image/png", data: FAR.toString("base64") }])
  expect(server.requests[2]!.body.messages[2].content[0].content[0].text).toEndWith(
    "[image from mcp.everything.get_tiny_image no longer available]",
  )
})
