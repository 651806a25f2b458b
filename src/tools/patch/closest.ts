import { looseKey, type LineIndex } from "./match.ts"

/**
 * The region of the file that looks most like lines that were not found, so the error can show
 * the model what is really there. Returns the 0-based start of a window as long as `old`.
 */
export function closestRegion(index: LineIndex, old: readonly string[], near: number): number | undefined {
  const n = index.length
  if (n === 0 || old.length === 0) return undefined
  const keys = index.keysAt(3)
  const positions = index.positionsAt(3)
  // Each old line found somewhere votes for the window that would put it there.
  const votes = new Map<number, number>()
  old.forEach((line, offset) => {
    const key = looseKey(line)
    const found = positions.get(key)
    // Blank lines, braces and the like are everywhere and say nothing about where the hunk was.
    if (!found || key.length < 2 || found.length > 200) return
    for (const position of found) votes.set(position - offset, (votes.get(position - offset) ?? 0) + 1)
  })
  let best: number | undefined
  let bestVotes = 0
  for (const [start, count] of votes) {
    if (count > bestVotes || (count === bestVotes && best !== undefined && Math.abs(start - near) < Math.abs(best - near))) {
      best = start
      bestVotes = count
    }
  }
  if (best === undefined) best = mostSimilarLine(keys, old)
  if (best === undefined) return undefined
  return Math.max(0, Math.min(best, n - Math.min(old.length, n)))
}

/** No line matched even loosely: compare the longest old line with every line by character pairs. */
function mostSimilarLine(keys: readonly string[], old: readonly string[]): number | undefined {
  let offset = 0
  old.forEach((line, i) => {
    if (looseKey(line).length > looseKey(old[offset]!).length) offset = i
  })
  const target = bigrams(looseKey(old[offset]!))
  if (target.size === 0) return undefined
  let best: number | undefined
  let bestScore = 0.3 // below this the region would only mislead
  for (let i = 0; i < keys.length; i++) {
    const score = dice(target, keys[i]!)
    if (score > bestScore) {
      bestScore = score
      best = i - offset
    }
  }
  return best
}

function bigrams(text: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (let i = 0; i < text.length - 1; i++) {
    const pair = text.slice(i, i + 2)
    counts.set(pair, (counts.get(pair) ?? 0) + 1)
  }
  return counts
}

function dice(target: Map<string, number>, text: string): number {
  if (text.length < 2) return 0
  let targetSize = 0
  for (const count of target.values()) targetSize += count
  const seen = new Map<string, number>()
  let common = 0
  for (let i = 0; i < text.length - 1; i++) {
    const pair = text.slice(i, i + 2)
    const used = seen.get(pair) ?? 0
    if (used < (target.get(pair) ?? 0)) common++
    seen.set(pair, used + 1)
  }
  return (2 * common) / (targetSize + text.length - 1)
}
