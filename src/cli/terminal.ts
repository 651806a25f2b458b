/**
 * Whether stdout (or stderr) is a terminal, and how wide, for the help and for `run`'s output.
 * Touching `process.stdout` builds a Node stream, which costs 15-20 ms in the compiled binary:
 * three times what `clanka help` needs otherwise. Bun's tty binding answers both in microseconds;
 * where it is missing or changes shape, process.stdout / process.stderr answer as before.
 */
export interface Terminal {
  isTTY: boolean
  /** Columns of the terminal; undefined when not a terminal or unknown. */
  columns: number | undefined
}

interface TtyBinding {
  isTTY(fd: number): boolean
  TTY: new (fd: number, readable: boolean) => { getWindowSize(size: number[]): unknown }
}

export function terminalOf(fd: 1 | 2 = 1): Terminal {
  try {
    const tty = (process as unknown as { binding(name: string): TtyBinding }).binding("tty_wrap")
    if (!tty.isTTY(fd)) return { isTTY: false, columns: undefined }
    const size = [0, 0]
    new tty.TTY(fd, false).getWindowSize(size)
    return { isTTY: true, columns: size[0]! > 0 ? size[0] : undefined }
  } catch {
    const stream = fd === 1 ? process.stdout : process.stderr
    return { isTTY: Boolean(stream.isTTY), columns: stream.isTTY ? stream.columns || undefined : undefined }
  }
}
