/**
 * The largest file readFile and applyPatch read whole. Past 2 GiB Bun's TextDecoder answers "" for
 * the text, which a patch would then write back over the file; well before that, the text passed to
 * the script as JSON outgrows what a string can hold.
 */
export const MAX_TEXT_BYTES = 256 * 1024 * 1024

/** "2.0 GiB", "300 MiB": a size over the limit, for the error message. */
export function formatSize(bytes: number): string {
  const gib = bytes / 1024 ** 3
  return gib >= 1 ? `${gib.toFixed(1)} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`
}

/** Why a file of `bytes` is not read whole, or undefined when it is small enough. */
export function tooLarge(bytes: number): string | undefined {
  if (bytes <= MAX_TEXT_BYTES) return undefined
  return `the file is ${formatSize(bytes)}, more than the ${formatSize(MAX_TEXT_BYTES)} read at once`
}

/** NUL bytes in the first 8,000 (as git tells binary files): UTF-16 text, object files. They decode as UTF-8 too. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0)
}
