/** Where a formatter writes: process.stdout, process.stderr, or a string buffer in tests. */
export interface Sink {
  write(text: string): unknown
}

/** Colours on when the stream is a terminal and NO_COLOR is unset or empty (no-color.org). */
export function wantsColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR
}
