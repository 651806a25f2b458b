// HTML to markdown for fetchMarkdown, via node-html-markdown (tables, code blocks, lists): page
// chrome, scripts, forms and media are dropped, links are made absolute. The library is loaded on
// first use: every executor loads the tools, few scripts fetch HTML.
import type { NodeHtmlMarkdown } from "node-html-markdown"

/** Elements whose whole subtree is dropped: not content a model reads. */
const DROPPED = [
  "script", "style", "noscript", "template", "nav", "form", "button", "input", "select", "textarea", "label",
  "img", "picture", "video", "audio", "source", "track", "svg", "canvas", "iframe", "object", "embed", "map",
  "dialog", "head", "link", "meta",
]

let converter: NodeHtmlMarkdown | undefined

export async function htmlToMarkdown(html: string, baseUrl?: string): Promise<string> {
  const { NodeHtmlMarkdown } = await import("node-html-markdown")
  converter ??= new NodeHtmlMarkdown({ ignore: DROPPED, maxConsecutiveNewlines: 2, bulletMarker: "-" })
  const source = baseUrl ? absolutizeLinks(html, baseUrl) : html
  return converter.translate(source).trim()
}

/** Rewrites `href` attributes to absolute URLs, so links in the markdown work out of context. */
function absolutizeLinks(html: string, baseUrl: string): string {
  return html.replace(/(<a\b[^>]*?\bhref\s*=\s*)(["'])(.*?)\2/gis, (whole, prefix: string, quote: string, href: string) => {
    if (/^(#|[a-z][a-z0-9+.-]*:)/i.test(href.trim())) return whole
    try {
      return `${prefix}${quote}${new URL(href.trim(), baseUrl).href}${quote}`
    } catch {
      return whole
    }
  })
}
