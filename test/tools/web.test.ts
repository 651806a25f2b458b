import { afterAll, afterEach, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { callTool } from "../../src/tools/registry.ts"
import { fetchMarkdown } from "../../src/tools/web/fetch-markdown.ts"
import { serveSite } from "../support/site.ts"
import { makeContext } from "./search-helpers.ts"

const dir = mkdtempSync(path.join(tmpdir(), "clanka-web-"))
const ctx = () => makeContext(dir)
const requests: Array<{ method: string; path: string; key: string | null; body: unknown }> = []
let bodyCancelled = false

const page = `<!doctype html><html><head><title>Doc</title><style>body{}</style><script>alert(1)</script></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main><h1>Install</h1><p>Run the <a href="guide/start">guide</a> or see <a href="https://other.example/x">elsewhere</a>.</p>
<ul><li>fast</li><li>small</li></ul>
<pre><code class="language-sh">npm install clanka
clanka run</code></pre>
<table><tr><th>flag</th><th>meaning</th></tr><tr><td>-C</td><td>directory</td></tr></table>
<form><input name="q"><button>Search</button></form><img src="logo.png" alt="logo"><video src="a.mp4"></video></main></body></html>`

const site = serveSite(async (request, url) => {
  if (url.pathname === "/search") {
    const body = await request.json()
    requests.push({ method: request.method, path: url.pathname, key: request.headers.get("x-api-key"), body })
    if (request.headers.get("x-api-key") === "bad") {
      return Response.json({ error: "Invalid API key" }, { status: 401 })
    }
    if ((body as { query: string }).query === "nothing") return Response.json({ results: [] })
    return Response.json({
      requestId: "r1",
      results: [
        {
          title: "Bun 1.4 released",
          url: "https://bun.example/blog/1.4",
          publishedDate: "2026-03-01T10:00:00.000Z",
          author: "Jarred",
          text: "Bun 1.4 ships a faster bundler.\n\nDetails follow.",
          score: 0.9,
        },
        { title: null, url: "https://bun.example/docs", publishedDate: null, author: null, text: "Docs index", score: 0.5 },
      ],
    })
  }
  if (url.pathname === "/docs/page") return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } })
  if (url.pathname === "/moved") return Response.redirect(`${base}/docs/page`, 302)
  if (url.pathname === "/plain") return new Response("plain *text*\n", { headers: { "content-type": "text/plain" } })
  if (url.pathname === "/readme.md") return new Response("# Title\n\n- item\n", { headers: { "content-type": "text/markdown; charset=utf-8" } })
  if (url.pathname === "/data.json") return new Response('{"a": [1, 2]}', { headers: { "content-type": "application/json" } })
  if (url.pathname === "/latin1") {
    return new Response(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), { headers: { "content-type": "text/plain; charset=iso-8859-1" } })
  }
  if (url.pathname === "/image.png") return new Response(new Uint8Array([137, 80, 78, 71]), { headers: { "content-type": "image/png" } })
  if (url.pathname === "/declared-huge") {
    return new Response("x".repeat(6 * 1024 * 1024), { headers: { "content-type": "text/plain" } })
  }
  if (url.pathname === "/endless") {
    // Chunked, no length: only streaming with a cap can refuse it.
    const chunk = new Uint8Array(64 * 1024).fill(97)
    let sent = 0
    return new Response(
      new ReadableStream({
        pull(controller) {
          if (sent++ > 2000) controller.close()
          else controller.enqueue(chunk)
        },
        cancel() {
          bodyCancelled = true
        },
      }),
      { headers: { "content-type": "text/plain" } },
    )
  }
  if (url.pathname === "/slow") {
    await Bun.sleep(5000)
    return new Response("late")
  }
  return new Response("gone", { status: 404, statusText: "Not Found" })
})
const base = site.base
afterAll(() => {
  site.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe("webSearch", () => {
  const saved = { key: process.env.EXA_API_KEY, url: process.env.EXA_BASE_URL }
  afterEach(() => {
    for (const [name, value] of [["EXA_API_KEY", saved.key], ["EXA_BASE_URL", saved.url]] as const) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    requests.length = 0
  })

  test("without a key it says which variable to set", async () => {
    delete process.env.EXA_API_KEY
    await expect(callTool("webSearch", { query: "bun" }, ctx())).rejects.toThrow(
      "webSearch: set EXA_API_KEY to an Exa API key (https://exa.ai) to use webSearch",
    )
  })

  test("posts the query to Exa and renders results as markdown", async () => {
    process.env.EXA_API_KEY = "k-123"
    process.env.EXA_BASE_URL = base
    const output = await callTool("webSearch", { query: "bun release", numResults: 2 }, ctx())
    expect(requests).toEqual([
      {
        method: "POST",
        path: "/search",
        key: "k-123",
        body: { query: "bun release", numResults: 2, contents: { text: { maxCharacters: 3000 } } },
      },
    ])
    expect(output).toBe(
      [
        "## 1. Bun 1.4 released",
        "https://bun.example/blog/1.4",
        "2026-03-01 · Jarred",
        "",
        "Bun 1.4 ships a faster bundler.\n\nDetails follow.",
        "",
        "## 2. https://bun.example/docs",
        "https://bun.example/docs",
        "",
        "Docs index",
      ].join("\n"),
    )
  })

  test("defaults: 5 results; no results said plainly", async () => {
    process.env.EXA_API_KEY = "k"
    process.env.EXA_BASE_URL = base
    expect(await callTool("webSearch", { query: "nothing" }, ctx())).toBe('No results for "nothing".')
    expect(requests[0]!.body).toEqual({ query: "nothing", numResults: 5, contents: { text: { maxCharacters: 3000 } } })
  })

  test("HTTP errors reject with status and message", async () => {
    process.env.EXA_API_KEY = "bad"
    process.env.EXA_BASE_URL = base
    await expect(callTool("webSearch", { query: "bun" }, ctx())).rejects.toThrow(
      "webSearch: Exa search failed: HTTP 401: Invalid API key",
    )
  })
})

describe("fetchMarkdown", () => {
  test("HTML becomes clean markdown: headings, absolute links, lists, code, tables; no nav, form, media", async () => {
    const output = await callTool("fetchMarkdown", `${base}/docs/page`, ctx())
    expect(output).toBe(
      [
        "# Install",
        "",
        `Run the [guide](${base}/docs/guide/start) or see [elsewhere](https://other.example/x).`,
        "",
        "- fast",
        "- small",
        "",
        "```sh",
        "npm install clanka",
        "clanka run",
        "```",
        "",
        "| flag | meaning   |",
        "| ---- | --------- |",
        "| \\-C  | directory |",
      ].join("\n"),
    )
  })

  test("redirects are followed; links resolve against the final URL", async () => {
    const output = (await callTool("fetchMarkdown", `${base}/moved`, ctx())) as string
    expect(output).toStartWith(`# Install\n\nRun the [guide](${base}/docs/guide/start)`)
  })

  test("text, markdown and JSON pass through as they are; the charset is honoured", async () => {
    expect(await callTool("fetchMarkdown", `${base}/plain`, ctx())).toBe("plain *text*\n")
    expect(await callTool("fetchMarkdown", `${base}/readme.md`, ctx())).toBe("# Title\n\n- item\n")
    expect(await callTool("fetchMarkdown", `${base}/data.json`, ctx())).toBe('{"a": [1, 2]}')
    expect(await callTool("fetchMarkdown", `${base}/latin1`, ctx())).toBe("café")
  })

  test("other content types, HTTP errors and bad URLs reject with a clear message", async () => {
    await expect(callTool("fetchMarkdown", `${base}/image.png`, ctx())).rejects.toThrow(
      `fetchMarkdown: cannot convert image/png from ${base}/image.png: fetchMarkdown reads HTML, text, markdown and JSON`,
    )
    await expect(callTool("fetchMarkdown", `${base}/missing`, ctx())).rejects.toThrow(
      `fetchMarkdown: HTTP 404 Not Found fetching ${base}/missing`,
    )
    await expect(callTool("fetchMarkdown", "file:///etc/passwd", ctx())).rejects.toThrow(
      "fetchMarkdown: only http and https URLs can be fetched, not file:",
    )
    await expect(callTool("fetchMarkdown", "not a url", ctx())).rejects.toThrow('fetchMarkdown: not a valid URL: "not a url"')
  })

  test("bodies over 5 MB are refused, by declared length or while streaming", async () => {
    await expect(callTool("fetchMarkdown", `${base}/declared-huge`, ctx())).rejects.toThrow(
      `fetchMarkdown: response from ${base}/declared-huge is larger than 5 MB (6291456 bytes); refused`,
    )
    await expect(callTool("fetchMarkdown", `${base}/endless`, ctx())).rejects.toThrow(
      `fetchMarkdown: response from ${base}/endless is larger than 5 MB; refused`,
    )
    await Bun.sleep(50)
    expect(bodyCancelled).toBe(true)
  })

  test("a server that does not answer times out", async () => {
    const started = performance.now()
    await expect(fetchMarkdown(`${base}/slow`, { timeoutMs: 200 })).rejects.toThrow(`timed out after 0.2 s fetching ${base}/slow`)
    expect(performance.now() - started).toBeLessThan(2000)
  })

  test("cancelling the script cancels the fetch", async () => {
    const controller = new AbortController()
    const pending = callTool("fetchMarkdown", `${base}/slow`, makeContext(dir, controller.signal))
    setTimeout(() => controller.abort(), 50)
    await expect(pending).rejects.toThrow("fetchMarkdown: cancelled")
  })
})
