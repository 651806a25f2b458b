/**
 * Whether stdout is a terminal, and how wide, for the help. Touching `process.stdout` builds a
 * Node stream, which costs 15-20 ms in the compiled binary: three times what `clanka help` needs
 * otherwise. Bun's tty binding answers both in microseconds; where it is missing or changes shape,
 * process.stdout answers as before.
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

export function stdoutTerminal(): Terminal {
  try {
    const tty = (process as unknown as { binding(name: string): TtyBinding }).binding("tty_wrap")
    if (!tty.isTTY(1)) return { isTTY: false, columns: undefined }
    const size = [0, 0]
    new tty.TTY(1, false).getWindowSize(size)
    return { isTTY: true, columns: size[0]! > 0 ? size[0] : undefined }
  } catch {
    return { isTTY: Boolean(process.stdout.isTTY), columns: process.stdout.isTTY ? process.stdout.columns || undefined : undefined }
  }
}
