/**
 * `clanka acp`: serve the Agent Client Protocol on stdin/stdout for an editor (Zed, JetBrains,
 * Neovim...). It takes run's flags that choose the model, the executor and the sandbox
 * (commands.ts); the editor gives each session its directory (cwd), MCP servers and prompts. The
 * protocol code (and the SDK with it) loads only here.
 */
import { defineCommand } from "./define-command.ts"
import { acp as spec } from "./commands.ts"
import { secondsFlag } from "./duration.ts"
import { budgetFlag, positiveWholeNumber, wholeNumber } from "./run.ts"
import type { AcpFlags } from "../acp/session.ts"

export default defineCommand({
  ...spec,
  async run({ args }): Promise<number> {
    const flags = args as AcpFlags
    // Checked before the editor is answered: a bad flag is exit 2, as for run.
    positiveWholeNumber("--max-turns", flags["max-turns"])
    secondsFlag("--turn-timeout", flags["turn-timeout"])
    positiveWholeNumber("--compact-at", flags["compact-at"])
    wholeNumber("--max-depth", flags["max-depth"], 0)
    budgetFlag(flags["max-budget-usd"], [])
    const { serveAcp } = await import("../acp/server.ts")
    return await serveAcp(flags)
  },
})
