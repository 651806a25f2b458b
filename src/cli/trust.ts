/**
 * `clanka trust [DIR]` trusts a project's clanka.json and .mcp.json as they are now;
 * `clanka trust --list` shows the trusted projects, `clanka trust --remove DIR` forgets one.
 * Also the one line commands print when an untrusted project's settings were ignored.
 */
import { defineCommand } from "./define-command.ts"
import { trust as spec } from "./commands.ts"
import { relative } from "node:path"
import { ExitCode, UsageError } from "../errors.ts"
import type { LoadedConfig } from "../config/load.ts"
import { trustedProjects, trustProject, trustStorePath, untrustProject } from "../config/trust.ts"
import { visible } from "../output/visible.ts"

export default defineCommand({
  ...spec,
  async run({ args }): Promise<number> {
    const words: string[] = args._ ?? []
    if ([args.list === true, args.remove !== undefined, words.length > 0].filter(Boolean).length > 1) {
      throw new UsageError("clanka trust takes one of DIR, --list or --remove DIR")
    }
    if (args.list) {
      const projects = trustedProjects()
      if (projects.length === 0) process.stderr.write(`no trusted projects in ${trustStorePath()} (clanka trust DIR trusts one)\n`)
      process.stdout.write(projects.map((p) => `${visible(p.directory)}  ${p.matches ? "trusted" : "changed since trusted"}\n`).join(""))
      return ExitCode.ok
    }
    if (args.remove !== undefined) {
      const { directory, removed } = untrustProject(args.remove)
      if (!removed) throw new UsageError(`${directory} is not trusted (clanka trust --list shows what is)`)
      process.stdout.write(`no longer trusted: ${visible(directory)}\n`)
      return ExitCode.ok
    }
    const { directory, files } = trustProject(words[0] ?? ".")
    process.stdout.write(
      files.length === 0
        ? `trusted ${visible(directory)}: it has no clanka.json or .mcp.json yet (one created later needs clanka trust again)\n`
        : `trusted ${visible(directory)}: ${files.map(visible).join(", ")}\n`,
    )
    return ExitCode.ok
  },
})

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
