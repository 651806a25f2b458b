import { existsSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative } from "node:path"

/** A relative link that does not resolve: where it is, what it points at, and why it is broken. */
export interface BrokenLink {
  file: string
  line: number
  target: string
  reason: string
}

// Code is not markdown: links and headings inside fences or `spans` do not count.
const FENCE = /^\s*(```|~~~)/
const stripCodeSpans = (line: string) => line.replace(/(`+)[^`]*?\1/g, "")

/** GitHub's anchor for a heading: lowercase, punctuation dropped (not `-` or `_`), spaces to `-`. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")
}

/** The anchors a markdown file offers, numbered as GitHub numbers repeated headings (`x`, `x-1`). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>()
  const result = new Set<string>()
  let inFence = false
  for (const line of text.split("\n")) {
    if (FENCE.test(line)) inFence = !inFence
    if (inFence) continue
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const base = slug((heading[1] ?? "").replace(/`/g, ""))
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    result.add(count === 0 ? base : `${base}-${count}`)
  }
  return result
}

/** Every link target in a markdown text with its line: inline links, images and reference definitions. */
export function links(text: string): { line: number; target: string }[] {
  const result: { line: number; target: string }[] = []
  let inFence = false
  text.split("\n").forEach((raw, index) => {
    if (FENCE.test(raw)) inFence = !inFence
    if (inFence) return
    const line = stripCodeSpans(raw)
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) result.push({ line: index + 1, target: match[1] ?? "" })
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)/.exec(line)
    if (definition?.[1]) result.push({ line: index + 1, target: definition[1] })
  })
  return result
}

/** Checks the relative links of the given markdown files (paths under root): each file exists, each
 * `#anchor` into a markdown file names one of its headings. URLs with a scheme are not checked. */
export function brokenLinks(root: string, files: string[]): BrokenLink[] {
  const broken: BrokenLink[] = []
  const anchorCache = new Map<string, Set<string>>()
  const anchorsOf = (path: string) => {
    let set = anchorCache.get(path)
    if (!set) anchorCache.set(path, (set = anchors(readFileSync(path, "utf8"))))
    return set
  }
  for (const file of files) {
    const path = join(root, file)
    for (const { line, target } of links(readFileSync(path, "utf8"))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue
      const hash = target.indexOf("#")
      const part = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
      const resolved = part === "" ? path : part.startsWith("/") ? join(root, part) : join(dirname(path), part)
      const report = (reason: string) => broken.push({ file, line, target, reason })
      if (relative(root, resolved).startsWith("..")) report("points outside the repository")
      else if (!existsSync(resolved)) report(`no such file: ${relative(root, resolved)}`)
      else if (anchor !== undefined && resolved.endsWith(".md") && statSync(resolved).isFile()) {
        if (!anchorsOf(resolved).has(anchor.toLowerCase())) report(`no heading #${anchor} in ${relative(root, resolved)}`)
      }
    }
  }
  return broken
}
