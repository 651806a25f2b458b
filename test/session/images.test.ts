// Images in sessions: the transcript holds each image's path and hash, never its bytes; resuming
// reads the files again (a --image file here, a script's through the executor) and sends the same
// blocks; a file that changed or went away becomes a line saying so.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { FakeServer } from "../support/fake-model.ts"
import { png } from "../support/images.ts"
import { clanka, events, finish, serve, testbed, transcript } from "./helpers.ts"

setDefaultTimeout(60_000)

const { root, workspace, freshHome } = testbed("clanka-session-images-")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const attached = join(root, "attached.png")
const ATTACHED = png(5, 5, 10)
const SHOWN = png(6, 2, 200)
const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex")

test("a session keeps images by path and hash; resuming sends them again, or says they are gone", async () => {
  const home = freshHome()
  writeFileSync(attached, ATTACHED)
  writeFileSync(join(workspace, "shown.png"), SHOWN)
  const served = await serve([{ blocks: [{ type: "execute", script: 'await readImage({ path: "shown.png" })' }] }, finish("one"), finish("two"), finish("three")], home)
  server = served.server
  const first = await clanka(["run", "--json", "-C", workspace, "--image", attached, "look"], { env: served.env })
  expect(first.stderr).toBe("")
  expect(first.code).toBe(0)
  const id = events(first)[0].sessionId

  // No bytes in the transcript: each image by its path and hash.
  const text = readFileSync(join(home, "sessions", `${id}.jsonl`), "utf8")
  expect(text).not.toContain(ATTACHED.toString("base64"))
  expect(text).not.toContain(SHOWN.toString("base64"))
  const messages = transcript(home, id).filter((line) => line.type === "message").map((line) => line.message)
  expect(messages[0]).toEqual({
    role: "user",
    content: "look",
    images: [{ mediaType: "image/png", sha256: sha256(ATTACHED), width: 5, height: 5, path: attached, from: "prompt" }],
  })
  expect(messages[2].images).toEqual([{ mediaType: "image/png", sha256: sha256(SHOWN), width: 6, height: 2, path: join(workspace, "shown.png"), from: "script" }])

  // Resumed with the files unchanged: the same image blocks as the first run sent.
  const second = await clanka(["run", "--json", "--resume", id, "again"], { env: served.env, cwd: root })
  expect(second.stderr).toBe("")
  expect(second.code).toBe(0)
  const sent = server.requests[1]!.body.messages
  const resent = server.requests[2]!.body.messages
  expect(resent[0].content[0]).toEqual(sent[0].content[0])
  expect(resent[0].content[0].type).toBe("image")
  expect(resent[2].content[0].content).toEqual(sent[2].content[0].content)
  expect(server.requests[2]!.images.map((image) => [image.in, image.data])).toEqual([
    ["user", ATTACHED.toString("base64")],
    ["tool", SHOWN.toString("base64")],
  ])

  // One file changed, the other is gone: each becomes a line in its message, and no image is sent.
  writeFileSync(attached, png(5, 5, 11))
  rmSync(join(workspace, "shown.png"))
  const third = await clanka(["run", "--json", "--resume", id, "and again"], { env: served.env, cwd: root })
  expect(third.stderr).toBe("")
  expect(third.code).toBe(0)
  const request = server.requests[3]!
  expect(request.images).toEqual([])
  expect(request.body.messages[0].content).toEqual([{ type: "text", text: `look\n[image ${attached} no longer available]` }])
  expect(request.body.messages[2].content[0].content).toBe(
    `[image shown after this output: ${join(workspace, "shown.png")} (6×2 PNG)]\n[image ${join(workspace, "shown.png")} no longer available]`,
  )
})

test("resumed with a model that takes no images: each image is a line saying so", async () => {
  const home = freshHome()
  writeFileSync(attached, ATTACHED)
  const served = await serve([finish("one"), finish("two")], home)
  server = served.server
  const first = events(await clanka(["run", "--json", "-C", workspace, "--image", attached, "look"], { env: served.env }))
  const result = await clanka(["run", "--json", "--resume", first[0].sessionId, "-m", "anthropic/claude-3-5-haiku", "again"], { env: served.env, cwd: root })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  expect(server.requests[1]!.images).toEqual([])
  expect(server.requests[1]!.body.messages[0].content[0].text).toBe(
    `look\n[image ${attached} not shown: anthropic/claude-3-5-haiku does not take images; describe what you need in text instead]`,
  )
})
