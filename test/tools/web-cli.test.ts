import { afterAll, expect, test } from "bun:test"
import { clanka } from "../support/cli.ts"
import { serveSite } from "../support/site.ts"

// The web tools as a user reaches them: inside `clanka exec` scripts and through `clanka tool`.
const site = serveSite(async (request, url) => {
  if (url.pathname === "/search") {
    const { query } = (await request.json()) as { query: string }
    return Response.json({
      results: [{ title: `About ${query}`, url: "https://example.test/a", publishedDate: "2026-01-02", text: "Body text." }],
    })
  }
  if (url.pathname === "/old") return Response.redirect(`${base}/page`, 302)
  return new Response("<html><body><script>x()</script><h1>Title</h1><p>Some <b>bold</b> text.</p></body></html>", {
    headers: { "content-type": "text/html; charset=utf-8" },
  })
})
const base = site.base
afterAll(() => site.stop())

test("fetchMarkdown inside a clanka exec script follows the redirect and prints markdown", async () => {
  const result = await clanka(["exec", "--network", "-e", `console.log(await fetchMarkdown(${JSON.stringify(`${base}/old`)}))`])
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  expect(result.stdout).toContain("# Title")
  expect(result.stdout).toContain("Some **bold** text.")
  expect(result.stdout).not.toContain("x()")
})

test("webSearch through clanka tool uses EXA_API_KEY and EXA_BASE_URL", async () => {
  const env = { EXA_API_KEY: "k", EXA_BASE_URL: base }
  const result = await clanka(["tool", "webSearch", `{"query":"clanka"}`], { env })
  expect(result.code).toBe(0)
  const text = JSON.parse(result.stdout) as string
  expect(text).toContain("About clanka")
  expect(text).toContain("https://example.test/a")
  const missing = await clanka(["tool", "webSearch", `{"query":"clanka"}`], { env: { EXA_API_KEY: "" } })
  expect(missing.code).toBe(1)
  expect(missing.stderr).toBe("clanka: webSearch: set EXA_API_KEY to an Exa API key (https://exa.ai) to use webSearch\n")
})
