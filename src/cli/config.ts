import { defineCommand } from "./define-command.ts"
import { checkDirectory } from "../util/check-directory.ts"
import { config as spec } from "./commands.ts"
import { loadConfig, userConfigPath } from "../config/load.ts"
import { trustProjectFromEnv } from "../config/trust-key.ts"
import { visible } from "../output/visible.ts"
import { skippedServerLines } from "./config-notices.ts"

export default defineCommand({
  ...spec,
  async run({ args }) {
    if (args.directory !== undefined) await checkDirectory(args.directory)
    const loaded = loadConfig(args.directory ?? ".", { trustProject: args["trust-project"] === true || trustProjectFromEnv() })
    for (const line of skippedServerLines(loaded)) process.stderr.write(`clanka: ${line}\n`)
    // CLANKA_MODEL beats the files (an environment variable is a choice made for this shell);
    // copies, since loadConfig keeps what it read for the rest of the process. Values are shown
    // as written: `${VAR}` is expanded only where a server starts, so no secret is printed.
    const env = process.env.CLANKA_MODEL
    const config = env ? { ...loaded.config, model: env } : loaded.config
    const sources = env ? { ...loaded.sources, model: "CLANKA_MODEL" } : loaded.sources
    if (args.json) {
      const files = loaded.files.map(({ path, trust, ignored, skipped }) => ({ path, trust, ignored, ...(skipped.length > 0 ? { skipped } : {}) }))
      process.stdout.write(JSON.stringify({ config, sources, files }, null, 2) + "\n")
      return
    }
    const lines: string[] = loaded.files.map((file) => `# ${file.path}: ${file.trust}`)
    for (const [key, value] of Object.entries(config)) {
      if (key === "mcpServers") {
        for (const [name, server] of Object.entries(value as Record<string, unknown>)) {
          lines.push(`mcpServers.${name} = ${JSON.stringify(server)}  # ${sources[`mcpServers.${name}`]}`)
        }
      } else lines.push(`${key} = ${JSON.stringify(value)}  # ${sources[key]}`)
    }
    // What the untrusted files asked for, marked: it does not apply.
    for (const file of loaded.files) {
      for (const key of file.ignored) {
        const entries = key === "mcpServers" ? Object.entries(file.values.mcpServers ?? {}).map(([name, server]) => [`mcpServers.${name}`, server] as const) : [[key, file.values[key]] as const]
        for (const [name, value] of entries) lines.push(`${name} = ${JSON.stringify(value)}  # ${file.path} (ignored: untrusted)`)
      }
    }
    if (loaded.files.some((file) => file.trust === "untrusted")) {
      lines.push(`# untrusted project files may only narrow (model, output, a stricter sandbox, network off); trust them with: clanka trust ${loaded.project}`)
    }
    if (loaded.files.length === 0) {
      const user = userConfigPath()
      lines.push(`# no configuration: none of clanka.json, .mcp.json (project)${user ? ` or ${user} (user)` : ""} was found`)
    }
    process.stdout.write(visible(lines.join("\n")) + "\n")
  },
})
