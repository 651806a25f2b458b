// The search tool's work on the executor's side: bring the index up to date (or as far as the
// wait allows), rank, render.
import type { ToolContext } from "../tool.ts"
import { DEFAULT_LIMIT, type SearchToolOptions } from "../semantic.ts"
import { indexFor } from "./index.ts"
import { fuse, globFilter, lexicalRanking, pick, render } from "./query.ts"
import { vectorRanking } from "./vectors.ts"

/** How long a search waits for the index to catch up before answering from what it has. */
function waitMs(): number {
  const set = Number(process.env.CLANKA_SEARCH_WAIT_MS)
  return Number.isFinite(set) && set >= 0 ? set : 3000
}

export async function runSearch(query: string, options: SearchToolOptions, ctx: Pick<ToolContext, "directory" | "agentCall" | "signal">): Promise<string> {
  const index = indexFor(ctx.directory)
  const pending = await index.catchUp(waitMs())
  const limit = options.limit ?? DEFAULT_LIMIT
  const globs = options.glob === undefined ? [] : [options.glob].flat()
  // With a glob most candidates may be filtered out: look deeper.
  const depth = globs.length ? 5000 : Math.max(100, limit * 10)
  // The embeddings first: while the agent is asked for them, another clanka on this workspace may
  // rewrite the index. The words are ranked and the chunks read in one read transaction, so every
  // chunk ranked is still there to show.
  const vectors = await vectorRanking(index, query, ctx, depth)
  const chunks = index.store.snapshot(() => {
    const ids = lexicalRanking(index.store, query, depth)
    return pick(index.store, vectors ? fuse([ids, vectors.ids]) : ids, limit, globFilter(globs))
  })
  const notes: string[] = []
  if (pending) {
    const where = pending.total === 0 ? "listing the files" : `${pending.done} of ${pending.total} files read`
    notes.push(`[index still being built: ${where}; results may be missing some; search again later]`)
  }
  if (index.store.problem) notes.push(`[index kept in memory only: ${index.store.problem}]`)
  if (vectors?.note) notes.push(`[${vectors.note}]`)
  if (chunks.length === 0) notes.push(`[no chunks match ${JSON.stringify(query)}${globs.length ? ` in ${globs.join(", ")}` : ""}; try other words, or rg() for an exact pattern]`)
  const text = render(ctx.directory, chunks)
  return [...notes, text].filter((part) => part !== "").join("\n")
}
