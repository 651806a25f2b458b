/**
 * The one line commands print when an untrusted project's settings were ignored, and those naming
 * the MCP servers of a `.mcp.json` that were skipped.
 */
import { relative } from "node:path"
import type { LoadedConfig } from "../config/load.ts"
import { visible } from "../output/visible.ts"

/**
 * One line naming what the untrusted project files asked for and did not get, and how to trust
 * them; undefined when nothing was ignored.
 */
export function ignoredNotice(loaded: LoadedConfig): string | undefined {
  const parts = loaded.files
    .filter((file) => file.ignored.length > 0)
    .map((file) => {
      const keys = file.ignored.map((key) =>
        key === "mcpServers"
          ? `mcpServers (${Object.keys(file.values.mcpServers ?? {}).length})`
          : key === "hooks"
            ? `hooks (${Object.values(file.values.hooks ?? {}).flat().length})`
            : key,
      )
      return `${relative(loaded.directory, file.path)}: ${keys.join(", ")}`
    })
  if (parts.length === 0) return undefined
  return `ignored in the untrusted project config: ${parts.join("; ")}; trust it with: clanka trust ${shellWord(loaded.project)} (or pass --trust-project for this run)`
}

/** One line per server of a `.mcp.json` that clanka skipped, naming the file, the server and why. */
export function skippedServerLines(loaded: LoadedConfig): string[] {
  return loaded.files.flatMap((file) => file.skipped.map((each) => skippedLine(file.path, each)))
}

export function skippedLine(path: string, { server, why }: { server: string; why: string }): string {
  return visible(`${path}: skipped MCP server "${server}": ${why}`)
}

/** A path as it can be pasted into a shell. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}
