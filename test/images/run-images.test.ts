// Images through the real CLI: `clanka run --image` and readImage in a script (run by the
// sandboxed executor, over the protocol), against the fake servers of each provider, which record
// the exact blocks the real SDKs sent.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { fakeProviders, startFakeModel, type FakeProvider, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { jpeg, png } from "../support/images.ts"
import { temporaryDirectory } from "../support/temp.ts"

setDefaultTimeout(60_000)

const directory = temporaryDirectory("clanka-images-")
const PNG = png(4, 3)
const JPEG = jpeg(64, 48)
writeFileSync(join(directory, "shot.png"), PNG)
// Told by its bytes: a PNG named .jpg is sent as the PNG it is.
writeFileSync(join(directory, "really-a-png.jpg"), PNG)
writeFileSync(join(directory, "photo.jpeg"), JPEG)
writeFileSync(join(directory, "notes.png"), "not an image at all\n")

const PNG64 = PNG.toString("base64")
const JPEG64 = JPEG.toString("base64")

let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const MODEL: Record<FakeProvider, string> = { anthropic: "anthropic/claude-sonnet-4-5", openai: "openai/gpt-5", "openai-compatible": "openai-compatible/qwen3-vl" }

async function serve(provider: FakeProvider, turns: FakeTurn[], model = MODEL[provider]): Promise<Record<string, string>> {
  server = await startFakeModel(provider, turns)
  return { ...server.env, CLANKA_MODEL: model, CLANKA_NO_SESSION: "1" }
}

const finish: FakeTurn = { blocks: [{ type: "execute", script: 'await taskComplete("seen")' }] }

/** The wire form of the first user message with two images and the prompt, per provider. */
const promptMessage: Record<FakeProvider, unknown> = {
  anthropic: {
    role: "user",
    content: [
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG64 } },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: JPEG64 } },
      { type: "text", text: "what is in these?", cache_control: { type: "ephemeral" } },
    ],
  },
  openai: {
    role: "user",
    content: [
      { type: "input_text", text: "what is in these?" },
      { type: "input_image", image_url: `data:image/png;base64,${PNG64}`, detail: "auto" },
      { type: "input_image", image_url: `data:image/jpeg;base64,${JPEG64}`, detail: "auto" },
    ],
  },
  "openai-compatible": {
    role: "user",
    content: [
      { type: "text", text: "what is in these?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG64}` } },
      { type: "image_url", image_url: { url: `data:image/jpeg;base64,${JPEG64}` } },
    ],
  },
}

for (const provider of fakeProviders) {
  test(`--image against ${provider}: the prompt carries real image blocks, the type told by the bytes`, async () => {
    const env = await serve(provider, [finish])
    const result = await clanka(["run", "--json", "-C", directory, "--image", join(directory, "really-a-png.jpg"), "--image", join(directory, "photo.jpeg"), "what is in these?"], { env })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout.split("\n")[0]!)).toMatchObject({ _tag: "AgentStart", prompt: "what is in these?", images: [join(directory, "really-a-png.jpg"), join(directory, "photo.jpeg")] })
    const body = server!.requests[0]!.body
    const first = provider === "openai" ? body.input[0] : provider === "anthropic" ? body.messages[0] : body.messages[1]
    expect(first).toEqual(promptMessage[provider])
  })
}

/** A script that prints, shows shot.png, and prints the handle it got. */
const LOOK = 'console.log("looking"); const seen = await readImage({ path: "shot.png" }); console.log(seen.mediaType, seen.width, seen.height, seen.bytes)'

test("readImage (anthropic): the tool_result holds the script's text, then the image block", async () => {
  const env = await serve("anthropic", [{ blocks: [{ type: "execute", script: LOOK }] }, finish])
  const result = await clanka(["run", "--json", "-C", directory, "look at shot.png"], { env })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const text = `looking\nimage/png 4 3 ${PNG.length}\n[image shown after this output: ${join(directory, "shot.png")} (4×3 PNG)]`
  // The user sees the same output the model does.
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(events.find((event) => event._tag === "ScriptOutput")).toEqual({ _tag: "ScriptOutput", output: text })
  const last = server!.requests[1]!.body.messages.at(-1)
  expect(last).toEqual({
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: "toolu_0_0",
        content: [
          { type: "text", text },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG64 } },
        ],
        cache_control: { type: "ephemeral" },
      },
    ],
  })
})

test("readImage (openai): the function_call_output is a list, the input_text then the input_image", async () => {
  const env = await serve("openai", [{ blocks: [{ type: "execute", script: LOOK }] }, finish])
  const result = await clanka(["run", "--json", "-C", directory, "look at shot.png"], { env })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  expect(server!.requests[1]!.body.input.at(-1)).toEqual({
    type: "function_call_output",
    call_id: "call_0_0",
    output: [
      { type: "input_text", text: `looking\nimage/png 4 3 ${PNG.length}\n[image shown after this output: ${join(directory, "shot.png")} (4×3 PNG)]` },
      { type: "input_image", image_url: `data:image/png;base64,${PNG64}`, detail: "auto" },
    ],
  })
})

test("readImage (openai-compatible): the tool message stays text; a user message after it carries the image", async () => {
  const env = await serve("openai-compatible", [{ blocks: [{ type: "execute", script: LOOK }] }, finish])
  const result = await clanka(["run", "--json", "-C", directory, "look at shot.png"], { env })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  expect(server!.requests[1]!.body.messages.slice(-2)).toEqual([
    { role: "tool", tool_call_id: "call_0_0", content: `looking\nimage/png 4 3 ${PNG.length}\n[image shown after this output: ${join(directory, "shot.png")} (4×3 PNG)]` },
    {
      role: "user",
      content: [
        { type: "text", text: "Images from the script output above:" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG64}` } },
      ],
    },
  ])
})

test("readImage of a file that is no image fails in the script, with the reason; nothing is attached", async () => {
  const env = await serve("anthropic", [{ blocks: [{ type: "execute", script: 'await readImage({ path: "notes.png" })' }] }, finish])
  const result = await clanka(["run", "--json", "-C", directory, "look"], { env })
  expect(result.code).toBe(0)
  expect(server!.requests[1]!.toolResults[0]).toStartWith(
    "Error: readImage: notes.png is not a PNG, JPEG, GIF or WebP image (told by its first bytes, not its name) (line 1)",
  )
  expect(server!.requests[1]!.images).toEqual([])
})

test("--image with a model that takes no images: exit 2 before any request", async () => {
  const env = await serve("anthropic", [finish], "anthropic/claude-3-5-haiku")
  const result = await clanka(["run", "--json", "-C", directory, "--image", join(directory, "shot.png"), "look"], { env })
  expect(result.code).toBe(2)
  expect(result.stderr).toBe("clanka: --image: anthropic/claude-3-5-haiku does not take images; choose a model that does, or leave the image out\n")
  expect(server!.requests).toHaveLength(0)
})

test("readImage under a model that takes no images fails in the script with one clear line", async () => {
  const env = await serve("anthropic", [{ blocks: [{ type: "execute", script: 'await readImage({ path: "shot.png" })' }] }, finish], "anthropic/claude-3-5-haiku")
  const result = await clanka(["run", "--json", "-C", directory, "look"], { env })
  expect(result.code).toBe(0)
  expect(server!.requests[1]!.toolResults[0]).toStartWith(
    "Error: readImage: anthropic/claude-3-5-haiku does not take images; describe what you need in text instead (line 1)",
  )
  expect(server!.requests[1]!.images).toEqual([])
})

test("--image of a file that is not an image, missing, or too large for the provider: exit 2, no request", async () => {
  const big = join(directory, "big.png")
  // A PNG header and 4 MiB after it: more than Anthropic's 5 MiB of base64 (3.75 MiB of bytes).
  writeFileSync(big, Buffer.concat([PNG, Buffer.alloc(4 * 1024 * 1024)]))
  const wide = join(directory, "wide.png")
  writeFileSync(wide, png(8001, 1))
  const cases: [string, string][] = [
    [join(directory, "notes.png"), `--image: ${join(directory, "notes.png")} is not a PNG, JPEG, GIF or WebP image (told by its first bytes, not its name)`],
    [join(directory, "missing.png"), `--image: ${join(directory, "missing.png")} does not exist`],
    [big, `--image: ${big} is 4 MiB; the model takes images up to 3.75 MiB`],
    [wide, `--image: ${wide} is 8001×1 pixels; the model takes at most 8000 on a side (scale the PNG down first)`],
  ]
  for (const [file, message] of cases) {
    const env = await serve("anthropic", [finish])
    const result = await clanka(["run", "--json", "-C", directory, "--image", file, "look"], { env })
    expect(result.stderr).toBe(`clanka: ${message}\n`)
    expect(result.code).toBe(2)
    expect(server!.requests).toHaveLength(0)
    await server!.close()
    server = undefined
  }
  // OpenAI takes 20 MB and scales large sides itself: the same files go.
  const env = await serve("openai", [finish])
  const result = await clanka(["run", "--json", "-C", directory, "--image", big, "--image", wide, "look"], { env })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  expect(server!.requests[0]!.images.map((image) => image.mediaType)).toEqual(["image/png", "image/png"])
})
