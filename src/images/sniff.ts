/**
 * What kind of image some bytes are, told by their first bytes (never by a file name), and its
 * size in pixels, read from the header: PNG, JPEG, GIF and WebP, the formats every provider takes.
 */

export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number]

export interface ImageFacts {
  mediaType: ImageMediaType
  width: number
  height: number
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return prefix.every((byte, i) => bytes[at + i] === byte)
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length))
}

/** The format by magic bytes, or null when it is none of the four. */
export function sniffMediaType(bytes: Uint8Array): ImageMediaType | null {
  if (startsWith(bytes, PNG)) return "image/png"
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg"
  const head = ascii(bytes, 0, 6)
  if (head === "GIF87a" || head === "GIF89a") return "image/gif"
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") return "image/webp"
  return null
}

/**
 * Format and size in pixels; null when the bytes are none of the four formats. A file that starts
 * like one but whose header cannot be read (cut short, damaged) throws, naming the format.
 */
export function imageFacts(bytes: Uint8Array): ImageFacts | null {
  const mediaType = sniffMediaType(bytes)
  if (!mediaType) return null
  const size = dimensions(mediaType, bytes)
  if (!size || size.width <= 0 || size.height <= 0) throw new Error(`it starts like a ${FORMAT_NAMES[mediaType]} but its header is damaged or cut short`)
  return { mediaType, ...size }
}

export const FORMAT_NAMES: Record<ImageMediaType, string> = {
  "image/png": "PNG",
  "image/jpeg": "JPEG",
  "image/gif": "GIF",
  "image/webp": "WebP",
}

function dimensions(mediaType: ImageMediaType, bytes: Uint8Array): { width: number; height: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const fits = (end: number) => end <= bytes.length
  switch (mediaType) {
    case "image/png":
      // The IHDR chunk comes first: width and height, big-endian, at 16 and 20.
      if (!fits(24) || ascii(bytes, 12, 4) !== "IHDR") return null
      return { width: view.getUint32(16), height: view.getUint32(20) }
    case "image/gif":
      // The logical screen size, little-endian, right after the signature.
      if (!fits(10)) return null
      return { width: view.getUint16(6, true), height: view.getUint16(8, true) }
    case "image/webp":
      return webpSize(bytes, view)
    case "image/jpeg":
      return jpegSize(bytes, view)
  }
}

function webpSize(bytes: Uint8Array, view: DataView): { width: number; height: number } | null {
  if (bytes.length < 30) return null
  const chunk = ascii(bytes, 12, 4)
  if (chunk === "VP8 ") {
    // Lossy: a key frame's start code, then 14-bit width and height.
    if (!startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) return null
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff }
  }
  if (chunk === "VP8L") {
    // Lossless: a signature byte, then width-1 and height-1 in 14 bits each.
    if (bytes[20] !== 0x2f) return null
    const bits = view.getUint32(21, true)
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 }
  }
  if (chunk === "VP8X") {
    // Extended: canvas width-1 and height-1 in 24 bits each.
    const width = (bytes[24]! | (bytes[25]! << 8) | (bytes[26]! << 16)) + 1
    const height = (bytes[27]! | (bytes[28]! << 8) | (bytes[29]! << 16)) + 1
    return { width, height }
  }
  return null
}

/** The first start-of-frame segment holds the size; the segments before it are skipped by length. */
function jpegSize(bytes: Uint8Array, view: DataView): { width: number; height: number } | null {
  let at = 2
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null
    const marker = bytes[at + 1]!
    // Fill bytes and markers without a length.
    if (marker === 0xff) {
      at++
      continue
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      at += 2
      continue
    }
    const length = view.getUint16(at + 2)
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > bytes.length) return null
      return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) }
    }
    if (length < 2) return null
    at += 2 + length
  }
  return null
}
