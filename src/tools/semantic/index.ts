// One workspace's search index, kept in step with its files: a stat scan before each search picks
// up what changed behind its back, the write tools refresh what they wrote at once (live.ts), and
// a first index of a big tree runs in the background while searches answer from what is indexed.
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { walkFiles } from "../search/walk.ts"
import { chunkFile } from "./chunk.ts"
import { registerIndex, toolGeneration, unregisterIndex, type LiveIndex } from "./live.ts"
import { searchIndexDir } from "./location.ts"
import { IndexStore, type FileStat, type NewChunk } from "./store.ts"
import { indexWords, pathWords } from "./terms.ts"
import { settlesWithin } from "../../util/settles-within.ts"

/**
 * How long a finished scan is trusted when no tool that could change files ran since: searches in
 * a row skip the walk; an editor's change shows after this long at most.
 */
function rescanMs(): number {
  const set = Number(process.env.CLANKA_SEARCH_RESCAN_MS)
  return Number.isFinite(set) && set >= 0 ? set : 2000
}

/** Files bigger than this are not indexed (generated code, data, bundles). */
export const MAX_FILE_BYTES = 1024 * 1024
/** Files indexed per transaction before the event loop gets a turn (pings, other calls). */
const BATCH = 200
/** Progress lines on stderr when a catch-up has this many files to read, at most one a second. */
const PROGRESS_FROM = 1000

export interface IndexProgress {
  done: number
  total: number
}

export interface SearchIndexOptions {
  directory: string
  /** Directory of the database; undefined keeps it in memory. */
  dir?: string
  /** Where progress lines go (default: stderr). */
  onProgress?(line: string): void
}

export class SearchIndex implements LiveIndex {
  readonly directory: string
  readonly store: IndexStore
  private known: Map<string, FileStat>
  private job: Promise<void> | undefined
  /** Set while a catch-up is reading files. */
  progress: IndexProgress | undefined
  private readonly onProgress: (line: string) => void
  /** When the last complete scan ended, and the tool generation it started at. */
  private lastScan: { generation: number; endedAt: number } | undefined
  /** Why the last scan failed, until a search reports it. */
  private failure: unknown

  constructor(options: SearchIndexOptions) {
    this.directory = options.directory
    this.store = new IndexStore(options.dir)
    this.known = this.store.files()
    this.onProgress = options.onProgress ?? ((line) => process.stderr.write(`${line}\n`))
    registerIndex(this.directory, this)
  }

  get fileCount(): number {
    return this.known.size
  }

  /**
   * Brings the index up to date with the files, waiting at most `waitMs`; the catch-up goes on in
   * the background after that. Resolves to the progress when it is still running.
   */
  async catchUp(waitMs: number): Promise<IndexProgress | undefined> {
    // A scan that just ended, with no tool since that could have changed files, is trusted.
    const last = this.lastScan
    if (!this.job && last && last.generation === toolGeneration() && Date.now() - last.endedAt < rescanMs()) return undefined
    // The job never rejects: a scan still running when no search waits for it must not become an
    // unhandled rejection; its error is reported by the next search.
    this.job ??= this.scan()
      .catch((error: unknown) => {
        this.failure = error
      })
      .finally(() => {
        this.job = undefined
        this.progress = undefined
      })
    const done = await settlesWithin(this.job, waitMs)
    const failure = this.failure
    this.failure = undefined
    if (failure !== undefined) throw failure
    if (done) return undefined
    return this.progress ?? { done: 0, total: 0 }
  }

  /** Walks the tree, compares stats with what is stored, re-reads what changed. */
  private async scan(): Promise<void> {
    const generation = toolGeneration()
    const seen = new Set<string>()
    const changed: Array<{ rel: string; stat: FileStat }> = []
    this.progress = { done: 0, total: 0 }
    await walkFiles({ root: this.directory, includeHidden: true }, (rel, abs) => {
      seen.add(rel)
      let info
      try {
        info = statSync(abs)
      } catch {
        return
      }
      const stat = { mtime: info.mtimeMs, size: info.size }
      const old = this.known.get(rel)
      if (!old || old.mtime !== stat.mtime || old.size !== stat.size) changed.push({ rel, stat })
    })
    const gone = [...this.known.keys()].filter((rel) => !seen.has(rel))
    if (gone.length) this.store.transaction(() => gone.forEach((rel) => this.forget(rel)))
    const progress = (this.progress = { done: 0, total: changed.length })
    const loud = changed.length >= PROGRESS_FROM
    let said = Date.now()
    if (loud) this.onProgress(`clanka search: indexing ${changed.length} files of ${this.directory}`)
    for (let i = 0; i < changed.length; i += BATCH) {
      const batch = changed.slice(i, i + BATCH)
      this.store.transaction(() => batch.forEach(({ rel, stat }) => this.indexFile(rel, stat)))
      progress.done = Math.min(changed.length, i + BATCH)
      if (loud && Date.now() - said >= 1000) {
        said = Date.now()
        this.onProgress(`clanka search: indexed ${progress.done} of ${progress.total} files`)
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
    if (loud) this.onProgress(`clanka search: index of ${this.directory} ready (${this.known.size} files)`)
    this.lastScan = { generation, endedAt: Date.now() }
  }

  /** The write tools changed these paths: re-read them now (a directory: every file under it). */
  async refresh(relPaths: readonly string[]): Promise<void> {
    const work: Array<{ rel: string; stat: FileStat | undefined }> = []
    for (const rel of relPaths) {
      const abs = join(this.directory, rel)
      let info
      try {
        info = statSync(abs)
      } catch {
        info = undefined
      }
      if (info?.isDirectory()) {
        await walkFiles({ root: abs, includeHidden: true }, (sub, subAbs) => {
          const stat = statSync(subAbs, { throwIfNoEntry: false })
          work.push({ rel: `${rel}/${sub}`, stat: stat && { mtime: stat.mtimeMs, size: stat.size } })
        })
      } else work.push({ rel, stat: info?.isFile() ? { mtime: info.mtimeMs, size: info.size } : undefined })
      // What used to be under a renamed or removed directory.
      if (!info?.isFile()) for (const known of this.known.keys()) if (known.startsWith(`${rel}/`) && !info) work.push({ rel: known, stat: undefined })
    }
    this.store.transaction(() => {
      for (const { rel, stat } of work) stat ? this.indexFile(rel, stat) : this.forget(rel)
    })
  }

  private forget(rel: string): void {
    this.store.removeFile(rel)
    this.known.delete(rel)
  }

  /** Reads and chunks one file; binary, huge and minified files are recorded with no chunks. */
  private indexFile(rel: string, stat: FileStat): void {
    let chunks: NewChunk[] = []
    if (stat.size <= MAX_FILE_BYTES) {
      let text: string | undefined
      try {
        text = textOf(readFileSync(join(this.directory, rel)))
      } catch {
        return // vanished or unreadable: the next scan decides
      }
      if (text !== undefined) {
        const where = pathWords(rel)
        chunks = chunkFile(rel, text).map((chunk) => ({
          start: chunk.start,
          end: chunk.end,
          symbols: chunk.symbols,
          pathWords: where,
          symbolWords: indexWords(chunk.symbols.join(" ")),
          bodyWords: indexWords(chunk.text),
        }))
      }
    }
    this.store.putFile(rel, stat, chunks)
    this.known.set(rel, stat)
  }

  close(): void {
    unregisterIndex(this.directory, this)
    this.store.close()
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** The text of a source file, or undefined for binary, non-UTF-8 or minified content. */
function textOf(bytes: Uint8Array): string | undefined {
  const head = bytes.subarray(0, 8192)
  if (head.includes(0)) return undefined
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return undefined
  }
  // Minified bundles: long lines of machine-made code that answer no question.
  const firstLines = text.slice(0, 8192).split("\n")
  if (firstLines.length <= 2 && text.length > 4000) return undefined
  return text
}

const indexes = new Map<string, SearchIndex>()

/** The index of a workspace, opened on first use and kept for the life of the process. */
export function indexFor(directory: string): SearchIndex {
  const dir = process.env.CLANKA_SEARCH_IN_MEMORY === "1" ? undefined : searchIndexDir(directory)
  const key = `${directory}\0${dir ?? ""}`
  let index = indexes.get(key)
  if (!index) {
    index = new SearchIndex({ directory, dir })
    indexes.set(key, index)
  }
  return index
}

/** Closes every open index (tests, before their temp directories go). */
export function closeIndexes(): void {
  for (const index of indexes.values()) index.close()
  indexes.clear()
}
