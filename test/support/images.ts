/**
 * Small image files for tests: a real PNG of any size (grey pixels), and the headers of the other
 * formats, enough for clanka's sniffing (the fake model servers never decode an image).
 */
import { deflateSync } from "node:zlib"

function crc32(bytes: Uint8Array): number {
  let crc = ~0
  for (const byte of bytes) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1))
  }
  return ~crc >>> 0
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, "ascii")
  out.set(data, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

/** A valid greyscale PNG of width × height; `shade` varies its bytes (and so its hash). */
export function png(width: number, height: number, shade = 128): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 0, 0, 0, 0], 8) // 8-bit greyscale
  const rows = Buffer.alloc((width + 1) * height, shade)
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0 // filter: none
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", new Uint8Array())])
}

/** A JPEG's start: SOI, an APP0 segment, then a baseline SOF0 with the size. */
export function jpeg(width: number, height: number): Buffer {
  const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
  const sof = [0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
  return Buffer.from([0xff, 0xd8, ...app0, ...sof, 0xff, 0xd9])
}

export function gif(width: number, height: number): Buffer {
  const out = Buffer.alloc(13)
  out.write("GIF89a", 0, "ascii")
  out.writeUInt16LE(width, 6)
  out.writeUInt16LE(height, 8)
  return out
}

/** A lossless WebP (VP8L) header. */
export function webp(width: number, height: number): Buffer {
  const out = Buffer.alloc(30)
  out.write("RIFF", 0, "ascii")
  out.writeUInt32LE(22, 4)
  out.write("WEBPVP8L", 8, "ascii")
  out.writeUInt32LE(9, 16)
  out[20] = 0x2f
  out.writeUInt32LE((width - 1) | ((height - 1) << 14), 21)
  return out
}
