/**
 * The first bytes of a regular file, at most `maxBytes`, read from one open descriptor. A file
 * that is huge (a sparse 10 GB one), endless (procfs files report size 0: /proc/self/pagemap) or
 * swapped for a FIFO after it was checked then costs no more memory than that, and a FIFO or a
 * device is never waited on. For files from a repository or named by a script.
 */
import { constants } from "node:fs"
import { open } from "node:fs/promises"

export interface Head {
  bytes: Buffer
  /** The file holds more than `maxBytes`. */
  more: boolean
}

/** The head of `path`; "not a file" when what it opened is no regular file. Open and read errors are thrown. */
export async function readHead(path: string, maxBytes: number): Promise<Head | "not a file"> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    if (!(await handle.stat()).isFile()) return "not a file"
    // One byte more than wanted tells whether there is more.
    const buffer = Buffer.alloc(maxBytes + 1)
    let length = 0
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length)
      if (bytesRead === 0) break
      length += bytesRead
    }
    return { bytes: buffer.subarray(0, Math.min(length, maxBytes)), more: length > maxBytes }
  } finally {
    await handle.close()
  }
}
