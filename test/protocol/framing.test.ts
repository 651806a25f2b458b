import { expect, test } from "bun:test"
import { PassThrough } from "node:stream"
import { LineWriter, readFrames, type Frame } from "../../src/protocol/framing.ts"

async function frames(chunks: (string | Uint8Array)[], max?: number): Promise<Frame[]> {
  async function* input() {
    yield* chunks
  }
  const out: Frame[] = []
  for await (const frame of readFrames(input(), max)) out.push(frame)
  return out
}

test("lines split anywhere, even inside a UTF-8 character, come out whole", async () => {
  const bytes = Buffer.from('{"a":"grüße ✓"}\r\n\n  \n{"b":2}\n{"c":3}')
  const chunks = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1))
  expect(await frames(chunks)).toEqual([{ line: '{"a":"grüße ✓"}' }, { line: '{"b":2}' }, { line: '{"c":3}' }])
})

test("a line over the limit is reported once and skipped up to the next newline", async () => {
  const long = "x".repeat(25)
  expect(await frames(["ok1\n" + long.slice(0, 10), long.slice(10), long, "\nok2\n"], 16)).toEqual([
    { line: "ok1" },
    { tooLong: true, limit: 16 },
    { line: "ok2" },
  ])
  // Exactly at the limit is fine; one byte more is not.
  expect(await frames(["x".repeat(16) + "\n" + "y".repeat(17) + "\nz\n"], 16)).toEqual([
    { line: "x".repeat(16) },
    { tooLong: true, limit: 16 },
    { line: "z" },
  ])
})

test("the writer sends each message as one JSON line, in order, batched into few writes", async () => {
  const sink = new PassThrough()
  const writes: string[] = []
  sink.on("data", (chunk) => writes.push(chunk.toString()))
  const writer = new LineWriter(sink)
  for (let i = 0; i < 100; i++) writer.send({ i })
  await new Promise((done) => setImmediate(done))
  await new Promise((done) => setImmediate(done))
  expect(writes.join("")).toBe(Array.from({ length: 100 }, (_, i) => `{"i":${i}}\n`).join(""))
  expect(writes.length).toBe(1)
})

test("the writer reports a full stream and resolves when it drains", async () => {
  const sink = new PassThrough({ highWaterMark: 1024 })
  const writer = new LineWriter(sink)
  writer.send({ text: "x".repeat(300 * 1024) }) // over the flush size: written at once
  const full = writer.drained
  expect(full).toBeInstanceOf(Promise)
  let drained = false
  full!.then(() => (drained = true))
  await new Promise((done) => setTimeout(done, 10))
  expect(drained).toBe(false)
  sink.resume()
  await full
  expect(writer.drained).toBeUndefined()
})
