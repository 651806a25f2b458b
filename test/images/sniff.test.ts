import { expect, test } from "bun:test"
import { imageFacts } from "../../src/images/sniff.ts"
import { gif, jpeg, png, webp } from "../support/images.ts"

test("the four formats are told by their first bytes, with their size in pixels", () => {
  expect(imageFacts(png(640, 480))).toEqual({ mediaType: "image/png", width: 640, height: 480 })
  expect(imageFacts(jpeg(1024, 768))).toEqual({ mediaType: "image/jpeg", width: 1024, height: 768 })
  expect(imageFacts(gif(32, 16))).toEqual({ mediaType: "image/gif", width: 32, height: 16 })
  expect(imageFacts(webp(300, 200))).toEqual({ mediaType: "image/webp", width: 300, height: 200 })
})

test("a JPEG's size is found past the segments before its frame header", () => {
  const exif = [0xff, 0xe1, 0x00, 0x08, 1, 2, 3, 4, 5, 6]
  const bytes = jpeg(50, 70)
  const withExif = Buffer.concat([bytes.subarray(0, 2), Buffer.from(exif), bytes.subarray(2)])
  expect(imageFacts(withExif)).toEqual({ mediaType: "image/jpeg", width: 50, height: 70 })
})

test("lossy and extended WebP headers", () => {
  const lossy = Buffer.alloc(30)
  lossy.write("RIFF", 0, "ascii")
  lossy.write("WEBPVP8 ", 8, "ascii")
  lossy.set([0x9d, 0x01, 0x2a], 23)
  lossy.writeUInt16LE(400, 26)
  lossy.writeUInt16LE(225, 28)
  expect(imageFacts(lossy)).toEqual({ mediaType: "image/webp", width: 400, height: 225 })
  const extended = Buffer.alloc(30)
  extended.write("RIFF", 0, "ascii")
  extended.write("WEBPVP8X", 8, "ascii")
  extended.writeUIntLE(4999, 24, 3)
  extended.writeUIntLE(99, 27, 3)
  expect(imageFacts(extended)).toEqual({ mediaType: "image/webp", width: 5000, height: 100 })
})

test("other bytes are no image; a known start with a damaged header is said to be one", () => {
  expect(imageFacts(Buffer.from("just text, named shot.png"))).toBeNull()
  expect(imageFacts(Buffer.from("%PDF-1.7"))).toBeNull()
  expect(() => imageFacts(png(10, 10).subarray(0, 20))).toThrow("it starts like a PNG but its header is damaged or cut short")
  expect(() => imageFacts(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))).toThrow("it starts like a JPEG")
})
