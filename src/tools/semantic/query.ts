// Answers a query from the index: BM25 over the chunks' words (lexical, always), fused by
// reciprocal rank with vector similarity when embeddings are available, filtered by globs, and
// rendered as `path:start-end` headers each followed by the chunk's current text.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { matchRules, parseIgnoreFile } from "../search/glob-pattern.ts"
import type { ChunkRow, IndexStore } from "./store.ts"
import { ftsOf, queryTerms } from "./terms.ts"

/** Output beyond this many characters is cut at a chunk boundary, with a note. */
export const OUTPUT_CAP_CHARS = 24_000
/** The constant of reciprocal rank fusion (Cormack et al. use 60). */
const RRF_K = 60

export interface Ranked {
  chunk: ChunkRow
  score: number
}

/** Above this many chunks to score, the ranking leaves out the query's most common words. */
const SCORED_ROWS_LIMIT = 20_000
/** A word in more of the chunks than this share tells little apart (its BM25 weight is low). */
const COMMON_SHARE = 0.2

/**
 * Chunk ids ranked lexically, best first (as many as `depth`). BM25 scores every chunk holding
 * any of the words; when that would be many chunks, words found in more than 20% of them are left
 * out as long as a rarer word remains (else only the rarest is kept): they weigh little in BM25 and
 * cost most of the time.
 */
export function lexicalRanking(store: IndexStore, query: string, depth: number): number[] {
  let terms = queryTerms(query)
  if (terms.length === 0) return []
  if (terms.length > 1) {
    const df = store.documentFrequencies(terms)
    if (df.reduce((sum, n) => sum + n, 0) > SCORED_ROWS_LIMIT) {
      const total = store.chunkCount()
      const rare = terms.filter((_term, i) => df[i]! <= total * COMMON_SHARE)
      terms = rare.length > 0 ? rare : [terms[df.indexOf(Math.min(...df))]!]
    }
  }
  return store.match(ftsOf(terms), depth).map((row) => row.id)
}

/** Reciprocal rank fusion of several rankings (each best first). */
export function fuse(rankings: readonly (readonly number[])[]): number[] {
  const scores = new Map<number, number>()
  for (const ranking of rankings) {
    ranking.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1)))
  }
  return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id)
}

/** A filter for rg-style globs (`*.ts`, `src/**`, `!*.test.ts`), as rg() and glob() read them. */
export function globFilter(globs: readonly string[]): (path: string) => boolean {
  if (globs.length === 0) return () => true
  const rules = globs.flatMap((glob) => parseIgnoreFile(glob))
  const whitelist = rules.some((rule) => !rule.negate)
  return (path) => {
    const verdict = matchRules(rules, path, false)
    if (verdict === "ignore") return true // a glob matched
    if (verdict === "whitelist") return false // a `!glob` matched
    return !whitelist
  }
}

/** The chunks of `ids` that pass the filter, at most `limit`, in order. */
export function pick(store: IndexStore, ids: readonly number[], limit: number, keep: (path: string) => boolean): ChunkRow[] {
  const out: ChunkRow[] = []
  for (const id of ids) {
    if (out.length >= limit) break
    const chunk = store.chunk(id)
    if (chunk && keep(chunk.path)) out.push(chunk)
  }
  return out
}

/** `path:start-end` then the lines, for each chunk, within OUTPUT_CAP_CHARS. */
export function render(directory: string, chunks: readonly ChunkRow[]): string {
  const texts = new Map<string, string[] | undefined>()
  const blocks: string[] = []
  let size = 0
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i]!
    if (!texts.has(chunk.path)) {
      try {
        texts.set(chunk.path, readFileSync(join(directory, chunk.path), "utf8").split("\n"))
      } catch {
        texts.set(chunk.path, undefined)
      }
    }
    const lines = texts.get(chunk.path)
    if (!lines) continue
    const end = Math.min(chunk.end, lines.length)
    const block = `${chunk.path}:${chunk.start}-${end}\n${lines.slice(chunk.start - 1, end).join("\n")}`
    if (size + block.length > OUTPUT_CAP_CHARS && blocks.length > 0) {
      const rest = chunks.slice(i).map((c) => `${c.path}:${c.start}-${c.end}`)
      blocks.push(`[output capped at ${OUTPUT_CAP_CHARS} characters; not shown: ${rest.join(", ")}]`)
      break
    }
    blocks.push(block)
    size += block.length
  }
  // A blank line between chunks.
  return blocks.join("\n\n")
}
