/**
 * Reading an image file for the model (`--image`, readImage) and checking it against what the
 * model's API takes, before any request: the format by magic bytes, the size in bytes, the size
 * in pixels. A failed check throws ImageError with one line for the user or the model.
 */
import { readHead } from "../util/read-head.ts"
import { FORMAT_NAMES, imageFacts, type ImageMediaType } from "./sniff.ts"

/** The largest image any provider takes (OpenAI's 20 MB): the bound when no model's limit is known. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024

export interface ImageLimits {
  maxBytes: number
  maxSide?: number
}

export interface LoadedImage {
  mediaType: ImageMediaType
  /** The bytes, base64. */
  data: string
  sha256: string
  width: number
  height: number
  bytes: number
}

/** A file that cannot be shown to the model; the message says why, without the caller's prefix. */
export class ImageError extends Error {
  override name = "ImageError"
}

export function formatBytes(bytes: number): string {
  // Exact while small, so that a size and a limit close to it never read the same.
  if (bytes < 10 * 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(2).replace(/\.?0+$/, "")} MiB`
}

/** Reads `path` (absolute) as an image within `limits`; `shown` is how messages name it. */
export async function loadImageFile(path: string, shown: string, limits: ImageLimits): Promise<LoadedImage> {
  let head
  try {
    // From one descriptor, opened without waiting for a writer (a FIFO), and never more than an
    // image may hold: procfs files say they are empty and read on (/proc/self/pagemap).
    head = await readHead(path, limits.maxBytes)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT" || code === "ENOTDIR") throw new ImageError(`${shown} does not exist`)
    if (code === "EACCES" || code === "EPERM") throw new ImageError(`${shown} cannot be read: permission denied`)
    if (code === "EISDIR") throw new ImageError(`${shown} is a directory, not an image file`)
    throw new ImageError(`${shown} cannot be read: ${code ?? (error as Error).message}`)
  }
  if (head === "directory") throw new ImageError(`${shown} is a directory, not an image file`)
  if (head === "not a file") throw new ImageError(`${shown} is not a regular file`)
  if (head.more) {
    const size = head.size > limits.maxBytes ? formatBytes(head.size) : `more than ${formatBytes(limits.maxBytes)}`
    throw new ImageError(`${shown} is ${size}; the model takes images up to ${formatBytes(limits.maxBytes)}`)
  }
  return checkImage(new Uint8Array(head.bytes.buffer, head.bytes.byteOffset, head.bytes.byteLength), shown, limits)
}

/** Checks bytes already in hand (an MCP tool's image) the same way. */
export function checkImage(bytes: Uint8Array, shown: string, limits: ImageLimits): LoadedImage {
  if (bytes.length === 0) throw new ImageError(`${shown} is empty`)
  if (bytes.length > limits.maxBytes) {
    throw new ImageError(`${shown} is ${formatBytes(bytes.length)}; the model takes images up to ${formatBytes(limits.maxBytes)}`)
  }
  let facts
  try {
    facts = imageFacts(bytes)
  } catch (error) {
    throw new ImageError(`${shown}: ${(error as Error).message}`)
  }
  if (!facts) throw new ImageError(`${shown} is not a PNG, JPEG, GIF or WebP image (told by its first bytes, not its name)`)
  if (limits.maxSide !== undefined && (facts.width > limits.maxSide || facts.height > limits.maxSide)) {
    throw new ImageError(
      `${shown} is ${facts.width}×${facts.height} pixels; the model takes at most ${limits.maxSide} on a side (scale the ${FORMAT_NAMES[facts.mediaType]} down first)`,
    )
  }
  return {
    ...facts,
    data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
    sha256: sha256Hex(bytes),
    bytes: bytes.length,
  }
}

export function sha256Hex(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex")
}
