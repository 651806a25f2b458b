import { defineCommand } from "citty"
import { loadConfig, userConfigPath } from "../config/load.ts"

export default defineCommand({
  meta: { name: "config", description: "Print the merged configuration and where each value came from" },
  args: {
    directory: { type: "string", alias: "C", description: "the project directory (default: cwd)", valueHint: "DIR" },
    json: { type: "boolean", description: "print {config, sources, files} as JSON" },
  },
  async run({ args }) {
    const loaded = loadConfig(args.directory ?? ".")
    // CLANKA_MODEL beats the files (an environment variable is a choice made for this shell);
    // copies, since loadConfig keeps what it read for the rest of the process.
    const env = process.env.CLANKA_MODEL
    const config = env ? { ...loaded.config, model: env } : loaded.config
    const sources = env ? { ...loaded.sources, model: "CLANKA_MODEL" } : loaded.sources
    const files = loaded.files
    if (args.json) {
      process.stdout.write(JSON.stringify({ config, sources, files }, null, 2) + "\n")
      return
    }
    const lines: string[] = []
    for (const [key, value] of Object.entries(config)) {
      if (key === "mcpServers") {
        for (const [name, server] of Object.entries(value as Record<string, unknown>)) {
          lines.push(`mcpServers.${name} = ${JSON.stringify(server)}  # ${sources[`mcpServers.${name}`]}`)
        }
      } else lines.push(`${key} = ${JSON.stringify(value)}  # ${sources[key]}`)
    }
    if (lines.length === 0) {
      const user = userConfigPath()
      lines.push(`# no configuration: none of clanka.json, .mcp.json (project)${user ? ` or ${user} (user)` : ""} was found`)
    }
    process.stdout.write(lines.join("\n") + "\n")
  },
})
