import { expect, test } from "bun:test"
import * as v from "valibot"
import { renderToolDeclaration } from "../../src/tools/dts.ts"
import { defineTool } from "../../src/tools/tool.ts"

test("a declaration renders parameters, optional fields, descriptions and the result type", () => {
  const tool = defineTool({
    name: "demo",
    description: "Matches src/**/*.ts files.",
    params: v.object({
      pattern: v.pipe(v.string(), v.description("a glob")),
      limit: v.optional(v.number()),
      mode: v.picklist(["a", "b"]),
    }),
    result: v.nullable(v.array(v.string())),
    run: async () => null,
  })
  expect(renderToolDeclaration(tool)).toBe(
    `/** Matches src/**\\/*.ts files. */\n` +
      `declare function demo(options: { /** a glob */ pattern: string; limit?: number; mode: "a" | "b" }): Promise<string[] | null>`,
  )
})
