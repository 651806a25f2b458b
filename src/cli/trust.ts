/**
 * `clanka trust [DIR]` trusts a project's clanka.json and .mcp.json as they are now;
 * `clanka trust --list` shows the trusted projects, `clanka trust --remove DIR` forgets one.
 */
import { statSync } from "node:fs"
import { defineCommand } from "./define-command.ts"
import { trust as spec } from "./commands.ts"
import { ExitCode, UsageError } from "../errors.ts"
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
    // A mistyped DIR would otherwise be trusted, and what the user meant stay untrusted unnoticed.
    const given = words[0] ?? "."
    const kind = statSync(given, { throwIfNoEntry: false })
    if (!kind) throw new UsageError(`${visible(given)}: no such directory`)
    if (!kind.isDirectory()) throw new UsageError(`${visible(given)} is not a directory; clanka trust takes a project's directory`)
    const { directory, files } = trustProject(given)
    process.stdout.write(
      files.length === 0
        ? `trusted ${visible(directory)}: it has no clanka.json or .mcp.json yet (one created later needs clanka trust again)\n`
        : `trusted ${visible(directory)}: ${files.map(visible).join(", ")}\n`,
    )
    return ExitCode.ok
  },
})
