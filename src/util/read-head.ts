/**
 * The first bytes of a regular file, at most `maxBytes`, read from one open descriptor. A file
 * that is huge (a sparse 10 GB one), endless (procfs files report size 0: /proc/self/pagemap) or
 * swapped for a FIFO after it was checked then costs no more memory than that, and a FIFO or a
 * device is never waited on. For files from a repository or named by a script.
 */
import { constants } from "node:fs"
import { open } from "node:fs/promises"

const CHUNK = 64 * 1024

export interface Head {
  bytes: Buffer
  /** The file holds more than `maxBytes`. */
  more: boolean
  /** The size the file reports (procfs files say 0). */
  size: number
}

/** The head of `path`, unless what it opened is a directory or another file that is not regular. Open and read errors are thrown. */
export async function readHead(path: string, maxBytes: number): Promise<Head | "directory" | "not a file"> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const info = await handle.stat()
    if (!info.isFile()) return info.isDirectory() ? "directory" : "not a file"
    // Read on past `maxBytes` to tell whether there is more. In whole chunks (some procfs files
    // refuse a read of an odd size: /proc/self/pagemap, EINVAL), kept apart until the end.
    const chunks: Buffer[] = []
    let length = 0
    while (length <= maxBytes) {
      const chunk = Buffer.alloc(CHUNK)
      const { bytesRead } = await handle.read(chunk, 0, CHUNK, length)
      if (bytesRead === 0) break
      chunks.push(chunk.subarray(0, bytesRead))
      length += bytesRead
    }
    const bytes = Buffer.concat(chunks, length)
    return { bytes: bytes.subarray(0, Math.min(length, maxBytes)), more: length > maxBytes, size: info.size }
  } finally {
    await handle.close()
  }
}
