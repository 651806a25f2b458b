// Shared by the rg and glob tests: real temporary trees and a real tool context.
import { afterAll } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { callTool } from "../../src/tools/registry.ts"
import type { ToolContext } from "../../src/tools/tool.ts"
import { toolContext } from "../support/tool-context.ts"

export type Tree = Record<string, string | Buffer | { symlink: string }>

export function makeTree(tree: Tree, root = mkdtempSync(path.join(tmpdir(), "clanka-search-"))): string {
  for (const [relPath, content] of Object.entries(tree)) {
    const file = path.join(root, relPath)
    mkdirSync(path.dirname(file), { recursive: true })
    if (typeof content === "object" && !Buffer.isBuffer(content)) symlinkSync(content.symlink, file)
    else writeFileSync(file, content)
  }
  return root
}

export function removeTree(root: string): void {
  rmSync(root, { recursive: true, force: true })
}

/** `tree(files)` for a test file: makes a temporary tree; all of them go after the file's tests. */
export function temporaryTrees(): (tree: Tree) => string {
  const roots: string[] = []
  afterAll(() => roots.forEach(removeTree))
  return (tree) => {
    const root = makeTree(tree)
    roots.push(root)
    return root
  }
}

export function makeContext(directory: string, signal = new AbortController().signal): ToolContext {
  return toolContext(directory, { signal })
}

/** Whether the rg binary is on PATH; without it only the built-in search can be tested. */
export const hasRg = Bun.which("rg") !== null

/** A test's name, saying why it is skipped when it needs the rg binary and rg is absent. */
export function needsRg(name: string): string {
  return hasRg ? name : `${name} [skipped: rg is not on PATH; .ci/run installs ripgrep]`
}

/**
 * Calls rg through the registry with each engine forced in turn; both must print the same.
 * Without the rg binary, the built-in search's output alone is returned (and checked by the caller).
 */
export async function rgBoth(params: unknown, directory: string): Promise<string> {
  const outputs = await eachEngine(async () => (await callTool("rg", params, makeContext(directory))) as string)
  if (outputs.rg !== undefined && outputs.rg !== outputs.builtin) {
    throw new Error(`engines disagree\n--- rg ---\n${outputs.rg}\n--- builtin ---\n${outputs.builtin}`)
  }
  return outputs.builtin
}

/** Each engine's rejection message (rg's only when the binary is on PATH). */
export async function rgErrors(params: unknown, directory: string): Promise<{ rg?: string; builtin: string }> {
  return eachEngine(() =>
    callTool("rg", params, makeContext(directory)).then(
      () => "resolved",
      (error: Error) => error.message,
    ),
  )
}

/** Runs `run` with CLANKA_SEARCH_ENGINE set to rg (when installed), then to builtin; restores it after. */
async function eachEngine<T>(run: () => Promise<T>): Promise<{ rg?: T; builtin: T }> {
  const results: { rg?: T; builtin?: T } = {}
  const saved = process.env.CLANKA_SEARCH_ENGINE
  try {
    for (const engine of hasRg ? (["rg", "builtin"] as const) : (["builtin"] as const)) {
      process.env.CLANKA_SEARCH_ENGINE = engine
      results[engine] = await run()
    }
  } finally {
    if (saved === undefined) delete process.env.CLANKA_SEARCH_ENGINE
    else process.env.CLANKA_SEARCH_ENGINE = saved
  }
  return results as { rg?: T; builtin: T }
}
