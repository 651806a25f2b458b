// The indexes open in this process, so that the write tools (writeFile, applyPatch, removeFile,
// renameFile) can update them at once. Nothing here loads the index: a workspace nobody searched
// has no entry and its writes cost nothing; its first search picks changes up by the stat scan.
import { isAbsolute, relative, resolve } from "node:path"

export interface LiveIndex {
  /** Re-reads these files (workspace-relative); missing ones leave the index. */
  refresh(relPaths: readonly string[]): Promise<void>
}

const open = new Map<string, LiveIndex>()

export function registerIndex(directory: string, index: LiveIndex): void {
  open.set(directory, index)
}

export function unregisterIndex(directory: string, index: LiveIndex): void {
  if (open.get(directory) === index) open.delete(directory)
}

/** Tells the index of `directory`, if one is open, that these paths (relative or absolute) changed. */
export async function filesChanged(directory: string, paths: readonly string[]): Promise<void> {
  const index = open.get(directory)
  if (!index || paths.length === 0) return
  const inside: string[] = []
  for (const path of paths) {
    const rel = relative(directory, resolve(directory, path))
    if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) inside.push(rel.split("\\").join("/"))
  }
  if (inside.length) await index.refresh(inside)
}

let generation = 0

/** Called around every tool call: counts the calls that may have changed files (Tool.keepsIndex). */
export function toolCalled(tool: { keepsIndex?: boolean }): void {
  if (!tool.keepsIndex) generation++
}

/** Changes whenever a tool ran that may have changed files behind the index's back. */
export function toolGeneration(): number {
  return generation
}
