// A library user's own tool, for the tests that hand an executor more than the built-in set.
import * as v from "valibot"
import { defineTool } from "../../src/index.ts"

export const shoutTool = defineTool({
  name: "shout",
  description: "Upper-cases the text and writes it to shout.txt.",
  params: v.object({ text: v.pipe(v.string(), v.description("what to shout")) }),
  result: v.string(),
  async run({ text }, ctx) {
    const loud = text.toUpperCase()
    await Bun.write(`${ctx.directory}/shout.txt`, loud)
    return loud
  },
})
