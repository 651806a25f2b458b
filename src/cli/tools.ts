import { defineCommand } from "./define-command.ts"
import { tools as spec } from "./commands.ts"
import { openExecutor, projectConfig } from "./executor-flags.ts"
import { checkDirectory } from "../util/check-directory.ts"

export default defineCommand({
  ...spec,
  async run({ args }) {
    // Checked here too: the fast path below starts no executor, which would check it.
    if (args.ssh === undefined && args.executor === undefined && args.directory !== undefined) await checkDirectory(args.directory)
    const { servers, unavailable } = projectConfig(args)
    if (args.ssh === undefined && args.executor === undefined && Object.keys(servers).length === 0 && unavailable.length === 0) {
      // The local executor's declarations need no executor: they are the built-in tools'.
      const { BuiltinTools } = await import("../tools/builtin-tools.ts")
      process.stdout.write(new BuiltinTools(args.search !== false).dts + "\n")
      return
    }
    const executor = await openExecutor(args)
    try {
      process.stdout.write((await executor.capabilities()).toolsDts + "\n")
    } finally {
      await executor.close()
    }
  },
})
