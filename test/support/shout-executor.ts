// `bun shout-executor.ts DIR`: a protocol executor built with the library whose tools are the
// built-in set plus `shout`, served on stdio like `clanka executor`.
import { builtinTools, LocalExecutor } from "../../src/index.ts"
import { serveExecutor } from "../../src/protocol/server.ts"
import { shoutTool } from "./shout-tool.ts"

const executor = new LocalExecutor({ directory: process.argv[2] ?? ".", tools: [...builtinTools, shoutTool] })
await serveExecutor(executor, process.stdin, process.stdout)
process.exit(0)
