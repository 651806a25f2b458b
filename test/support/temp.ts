import { afterAll } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A temporary directory for a test file: made now, removed after the file's tests. */
export function temporaryDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(directory, { recursive: true, force: true }))
  return directory
}
