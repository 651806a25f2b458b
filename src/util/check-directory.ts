import { stat } from "node:fs/promises"
import { UsageError } from "../errors.ts"

/**
 * A mistyped -C must stop before anything runs (or a model is paid for), not when a tool fails,
 * nor pass unnoticed where nothing is read there (`clanka config -C /nope` finding no files).
 */
export async function checkDirectory(directory: string): Promise<void> {
  const info = await stat(directory).catch(() => undefined)
  if (!info) throw new UsageError(`-C ${directory}: no such directory`)
  if (!info.isDirectory()) throw new UsageError(`-C ${directory}: not a directory`)
}
