import { describe, expect, test } from "bun:test"
import { assignJsNames, renderMcpDeclarations, schemaToType, type McpToolInfo } from "../../src/mcp/declarations.ts"
import { mcpTools } from "../../src/mcp/tools.ts"

const tool = (name: string, inputSchema: unknown, extra: Partial<McpToolInfo> = {}): McpToolInfo => ({ server: "gh", name, jsName: name, inputSchema, ...extra })

describe("MCP declarations from JSON Schema", () => {
  test("types: objects, optional and quoted keys, enums, unions, arrays, refs, records", () => {
    const schema = {
      type: "object",
      properties: {
        query: { type: "string", description: "what to find" },
        "per-page": { type: "integer" },
        state: { enum: ["open", "closed"] },
        labels: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } },
        owner: { $ref: "#/$defs/user" },
        extra: { type: "object", additionalProperties: { type: "boolean" } },
        note: { type: ["string", "null"] },
      },
      required: ["query"],
      $defs: { user: { type: "object", properties: { login: { type: "string" } }, required: ["login"] } },
    }
    expect(schemaToType(schema)).toBe(
      '{ /** what to find */ query: string; "per-page"?: number; state?: "open" | "closed"; labels?: (string | number)[]; owner?: { login: string }; extra?: { [key: string]: boolean }; note?: string | null }',
    )
  })

  test("names: identifiers for scripts, unique per server, never `describe`", () => {
    expect(assignJsNames(["get-sum", "get_sum", "2fa", "describe", "a.b"])).toEqual(["get_sum", "get_sum_2", "_2fa", "describe_2", "a_b"])
  })

  test("many tools: signatures only, with a pointer to mcp.describe", () => {
    const tools = Array.from({ length: 3 }, (_, i) =>
      tool(`t${i}`, { type: "object", properties: { deep: { type: "object", properties: { x: { type: "string", description: "long words ".repeat(20) } } } } }, { description: "Does a thing. ".repeat(20) }),
    )
    const full = renderMcpDeclarations(tools, [])
    expect(full).toContain("/** long words")
    const short = renderMcpDeclarations(tools, [], 500)
    expect(short).toContain('Signatures only: mcp.describe("server.tool") returns one tool\'s full declaration.')
    expect(short).toContain("    t0(args?: { deep?: { … } }): Promise<string>\n")
    expect(short).not.toContain("long words")
    expect(short.length).toBeLessThan(full.length / 2)
  })

  test("a recursive schema (a filter of filters) renders once, in bounded time and size", () => {
    // Twelve properties that each refer back to the filter: expanded to the ref limit this was
    // 12^8 copies, and `clanka tools` (or a run's start) never finished.
    const properties = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, { $ref: "#/$defs/filter" }]))
    const schema = { type: "object", properties: { filter: { $ref: "#/$defs/filter" }, name: { type: "string" } }, $defs: { filter: { type: "object", properties } } }
    const started = performance.now()
    const rendered = schemaToType(schema)
    expect(performance.now() - started).toBeLessThan(1000)
    expect(rendered).toBe(`{ filter?: { ${Array.from({ length: 12 }, (_, i) => `p${i}?: unknown`).join("; ")} }; name?: string }`)
    // A chain of distinct definitions that each use the next many times is cut off, not expanded.
    const defs: Record<string, unknown> = {}
    for (let level = 0; level < 9; level++) defs[`d${level}`] = { type: "object", properties: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, { $ref: `#/$defs/d${level + 1}` }])) }
    defs.d9 = { type: "string" }
    const chain = schemaToType({ $ref: "#/$defs/d0", $defs: defs })
    expect(chain.length).toBeLessThan(200_000)
    expect(renderMcpDeclarations([tool("q", { $ref: "#/$defs/d0", $defs: defs })], []).length).toBeLessThan(10_000)
  })

  test("thousands of tools: names only, cut to a bound; mcp.describe(\"server\") lists them all", async () => {
    const many = Array.from({ length: 5000 }, (_, i) => tool(`tool_${i}_${"x".repeat(30)}`, { type: "object", properties: { a: { type: "string" } } }, { description: "d".repeat(300) }))
    const rendered = renderMcpDeclarations(many, [])
    // Signatures only were 1.1 MB here: the prompt of every model request.
    expect(rendered.length).toBeLessThan(40_000)
    expect(rendered).toContain('  gh: {\n    // 5000 tools, too many to declare here: mcp.describe("gh") lists them, mcp.describe("gh.<tool>") gives one\'s declaration\n')
    expect(rendered).toContain(`    // tool_0_${"x".repeat(30)}, tool_1_`)
    expect(rendered).toMatch(/… and \d+ more\n    \[tool: string\]: \(args\?: Record<string, unknown>\) => Promise<unknown>\n  \}\n\}$/)
    const describe = mcpTools(many, async () => "")!.find((t) => t.name === "mcp.describe")!
    const listed = (await describe.run("gh", {} as never)) as string
    expect(listed.split("\n")).toHaveLength(5000)
    expect(listed.split("\n")[4999]).toBe(`mcp.gh.tool_4999_${"x".repeat(30)}: ${"d".repeat(99)}…`)
  })
})
