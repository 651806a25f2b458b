// Vector similarity for search, when the agent has an embedding model (--embed-model): the
// executor asks the agent's side to embed (the `embed` agent service), stores each chunk's vector
// with the model's name, embeds what has no vector for the current model (a model change
// re-embeds everything), and ranks chunks by cosine similarity to the query.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { ToolContext } from "../tool.ts"
import type { EmbedAnswer } from "./embed.ts"
import type { SearchIndex } from "./index.ts"
import { workspacePath } from "./store.ts"

/** Texts per embed request. */
const BATCH = 64
/** A chunk's text sent for embedding is cut here (embedding models take a few thousand tokens). */
const MAX_TEXT = 6000
/** Time a search may spend embedding new chunks; the rest is embedded by the next searches. */
function budgetMs(): number {
  const set = Number(process.env.CLANKA_SEARCH_EMBED_MS)
  return Number.isFinite(set) && set >= 0 ? set : 5000
}

export interface VectorRanking {
  ids: number[]
  note?: string
}

export async function vectorRanking(index: SearchIndex, query: string, ctx: Pick<ToolContext, "agentCall">, depth: number): Promise<VectorRanking | undefined> {
  let answer: EmbedAnswer
  try {
    answer = (await ctx.agentCall("embed", { texts: [query] })) as EmbedAnswer
  } catch (error) {
    const message = (error as Error).message
    // An agent without the service (an older clanka) simply has no embeddings.
    if (message.includes('no agent-side service "embed"')) return undefined
    return { ids: [], note: `embeddings unavailable (${message}); ranked by words only` }
  }
  if (!answer?.model || !answer.vectors[0]) return undefined
  const model = answer.model
  const store = index.store
  store.db.run("DELETE FROM vectors WHERE model != ?", [model])
  // Rows only of paths inside the workspace: their lines are sent to the embedding API.
  const missing = (store.db.query("SELECT c.id, c.path, c.start, c.end, c.symbols FROM chunks c LEFT JOIN vectors v ON v.chunk = c.id WHERE v.chunk IS NULL ORDER BY c.path, c.start").all() as Array<{ id: number; path: string; start: number; end: number; symbols: string }>).filter((row) => workspacePath(row.path))
  const started = Date.now()
  let embedded = 0
  let note: string | undefined
  const insert = store.db.prepare("INSERT OR REPLACE INTO vectors(chunk, model, vector) VALUES (?, ?, ?)")
  const files = new Map<string, string[] | undefined>()
  for (let i = 0; i < missing.length; i += BATCH) {
    if (Date.now() - started > budgetMs()) break
    const batch = missing.slice(i, i + BATCH)
    const texts = batch.map((chunk) => chunkText(index.directory, chunk, files))
    let vectors: number[][]
    try {
      const reply = (await ctx.agentCall("embed", { texts })) as EmbedAnswer
      if (reply.model !== model) break // the agent changed model meanwhile: the next search starts over
      vectors = reply.vectors
    } catch (error) {
      note = `embedding chunks failed (${(error as Error).message}); ranked by words where vectors are missing`
      break
    }
    store.transaction(() => batch.forEach((chunk, j) => insert.run(chunk.id, model, Buffer.from(normalized(vectors[j]!).buffer))))
    embedded += batch.length
  }
  if (!note && embedded < missing.length) note = `embeddings: ${missing.length - embedded} chunks not embedded yet; search again to embed more`
  const q = normalized(answer.vectors[0])
  const scored: Array<{ id: number; score: number }> = []
  for (const row of store.db.query("SELECT chunk, vector FROM vectors WHERE model = ?").iterate(model) as Iterable<{ chunk: number; vector: Uint8Array }>) {
    const v = new Float32Array(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength / 4)
    if (v.length !== q.length) continue
    let dot = 0
    for (let k = 0; k < q.length; k++) dot += q[k]! * v[k]!
    scored.push({ id: row.chunk, score: dot })
  }
  scored.sort((a, b) => b.score - a.score)
  return { ids: scored.slice(0, depth).map((s) => s.id), ...(note ? { note } : {}) }
}

/** What is embedded for a chunk: its path and names, then its lines. */
function chunkText(directory: string, chunk: { path: string; start: number; end: number; symbols: string }, files: Map<string, string[] | undefined>): string {
  if (!files.has(chunk.path)) {
    try {
      files.set(chunk.path, readFileSync(join(directory, chunk.path), "utf8").split("\n"))
    } catch {
      files.set(chunk.path, undefined)
    }
  }
  const lines = files.get(chunk.path)?.slice(chunk.start - 1, chunk.end).join("\n") ?? ""
  return `${chunk.path} ${chunk.symbols}\n${lines}`.slice(0, MAX_TEXT)
}

function normalized(vector: readonly number[]): Float32Array {
  const out = Float32Array.from(vector)
  let norm = 0
  for (const x of out) norm += x * x
  norm = Math.sqrt(norm) || 1
  for (let i = 0; i < out.length; i++) out[i]! /= norm
  return out
}
