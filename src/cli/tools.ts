import { defineCommand } from "citty"
import { toolsDts } from "../tools/registry.ts"

export default defineCommand({
  meta: { name: "tools", description: "Print the tool declarations the model sees" },
  args: {},
  run() {
    process.stdout.write(toolsDts() + "\n")
  },
})
