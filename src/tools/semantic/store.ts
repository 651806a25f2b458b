// The index on disk: one SQLite database per workspace (bun:sqlite, built into Bun). Files with
// the stat they were read at, their chunks as line ranges (the text is read back from the file
// when shown, which keeps the index small), an FTS5 table of the chunks' words ranked by BM25
// with path and symbol words weighted above body words, and embedding vectors with their model.
import { Database, type Statement } from "bun:sqlite"
import { chmodSync, closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, unlinkSync } from "node:fs"
import { join } from "node:path"

/** Bumped when the layout or the words indexed change: an older index is rebuilt. */
const SCHEMA_VERSION = "4"

/** BM25 weights of the FTS columns: path words, declared symbols, body words. */
export const WEIGHTS = { path: 3, symbols: 6, body: 1 }

export interface FileStat {
  mtime: number
  size: number
}

export interface ChunkRow {
  id: number
  path: string
  start: number
  end: number
  symbols: string
}

export interface NewChunk {
  start: number
  end: number
  symbols: string[]
  pathWords: string
  symbolWords: string
  bodyWords: string
}

export class IndexStore {
  readonly db: Database
  /** Where the database lives; ":memory:" when the cache directory cannot be written. */
  readonly location: string
  /** Why the index is not kept on disk, when it is not. */
  readonly problem: string | undefined
  private readonly insertChunk: Statement
  private readonly insertFts: Statement
  private readonly chunkIds: Statement
  private readonly deleteChunks: Statement
  private readonly deleteFts: Statement
  private readonly deleteVectors: Statement
  private readonly upsertFile: Statement
  private readonly deleteFile: Statement
  private readonly matchFts: Statement
  private readonly chunkById: Statement

  constructor(dir: string | undefined) {
    let db: Database | undefined
    let problem: string | undefined
    let location = ":memory:"
    if (dir !== undefined) {
      try {
        // The words and paths of the workspace's files, 0600 ones too: readable by the user only,
        // like the sessions. SQLite gives its WAL and shared-memory files the database's mode.
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        chmodSync(dir, 0o700)
        location = join(dir, "index.sqlite")
        clearLinks(location)
        const fd = openSync(location, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600)
        try {
          fchmodSync(fd, 0o600)
        } finally {
          closeSync(fd)
        }
        db = new Database(location, { create: true })
        // Two clanka processes may search one workspace at once: a writer waits for the other.
        db.run("PRAGMA busy_timeout = 10000")
        db.run("PRAGMA journal_mode = WAL")
        db.run("PRAGMA synchronous = NORMAL")
      } catch (error) {
        problem = `cannot write ${dir}: ${(error as Error).message}`
        location = ":memory:"
        db = undefined
      }
    }
    this.db = db ?? new Database(":memory:")
    this.location = location
    this.problem = problem
    // Another process may be creating the same index: the schema is checked and made under the lock.
    this.transaction(() => this.migrate())
    this.insertChunk = this.db.prepare("INSERT INTO chunks(path, start, end, symbols) VALUES (?, ?, ?, ?) RETURNING id")
    this.insertFts = this.db.prepare("INSERT INTO fts(rowid, path, symbols, body) VALUES (?, ?, ?, ?)")
    this.chunkIds = this.db.prepare("SELECT id FROM chunks WHERE path = ?")
    this.deleteChunks = this.db.prepare("DELETE FROM chunks WHERE path = ?")
    this.deleteFts = this.db.prepare("DELETE FROM fts WHERE rowid = ?")
    this.deleteVectors = this.db.prepare("DELETE FROM vectors WHERE chunk = ?")
    this.upsertFile = this.db.prepare("INSERT OR REPLACE INTO files(path, mtime, size) VALUES (?, ?, ?)")
    this.deleteFile = this.db.prepare("DELETE FROM files WHERE path = ?")
    this.matchFts = this.db.prepare("SELECT rowid AS id, rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?")
    this.chunkById = this.db.prepare("SELECT id, path, start, end, symbols FROM chunks WHERE id = ?")
  }

  private migrate(): void {
    const db = this.db
    db.run("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)")
    const version = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'schema'").get()?.value
    if (version !== SCHEMA_VERSION) {
      for (const table of ["files", "chunks", "fts_rows", "fts", "vectors"]) db.run(`DROP TABLE IF EXISTS ${table}`)
    }
    db.run("CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, mtime REAL NOT NULL, size INTEGER NOT NULL) WITHOUT ROWID")
    db.run("CREATE TABLE IF NOT EXISTS chunks(id INTEGER PRIMARY KEY, path TEXT NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL, symbols TEXT NOT NULL)")
    db.run("CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path)")
    db.run("CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(path, symbols, body, content='', contentless_delete=1, tokenize='porter unicode61')")
    db.run(`INSERT INTO fts(fts, rank) VALUES ('rank', 'bm25(${WEIGHTS.path}, ${WEIGHTS.symbols}, ${WEIGHTS.body})')`)
    db.run("CREATE TABLE IF NOT EXISTS vectors(chunk INTEGER PRIMARY KEY, model TEXT NOT NULL, vector BLOB NOT NULL)")
    // How many chunks hold a (stemmed) term; and a scratch table that stems words the way the
    // index does, so the two can be matched (see documentFrequencies).
    db.run("CREATE VIRTUAL TABLE IF NOT EXISTS fts_rows USING fts5vocab(fts, 'row')")
    db.run("CREATE VIRTUAL TABLE IF NOT EXISTS temp.stem USING fts5(x, tokenize='porter unicode61')")
    db.run("CREATE VIRTUAL TABLE IF NOT EXISTS temp.stem_terms USING fts5vocab(temp, stem, 'instance')")
    db.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?)", [SCHEMA_VERSION])
  }

  files(): Map<string, FileStat> {
    const map = new Map<string, FileStat>()
    for (const row of this.db.query<{ path: string; mtime: number; size: number }, []>("SELECT path, mtime, size FROM files").iterate()) {
      map.set(row.path, { mtime: row.mtime, size: row.size })
    }
    return map
  }

  /** Replaces what is stored for one file (call inside a transaction). */
  putFile(path: string, stat: FileStat, chunks: readonly NewChunk[]): void {
    this.dropChunks(path)
    for (const chunk of chunks) {
      const { id } = this.insertChunk.get(path, chunk.start, chunk.end, chunk.symbols.join(" ")) as { id: number }
      this.insertFts.run(id, chunk.pathWords, chunk.symbolWords, chunk.bodyWords)
    }
    this.upsertFile.run(path, stat.mtime, stat.size)
  }

  removeFile(path: string): void {
    this.dropChunks(path)
    this.deleteFile.run(path)
  }

  private dropChunks(path: string): void {
    for (const { id } of this.chunkIds.all(path) as Array<{ id: number }>) {
      this.deleteFts.run(id)
      this.deleteVectors.run(id)
    }
    this.deleteChunks.run(path)
  }

  /**
   * Takes the write lock at the start (BEGIN IMMEDIATE): a deferred transaction that reads first
   * cannot wait for another process's write and would fail with "database is locked".
   */
  transaction(run: () => void): void {
    this.db.transaction(run).immediate()
  }

  /** Runs `read` in one read transaction: one state of the index, whatever other processes write. */
  snapshot<T>(read: () => T): T {
    return this.db.transaction(read).deferred()
  }

  /** Chunk ids and BM25 scores (lower is better), best first. */
  match(fts: string, limit: number): Array<{ id: number; rank: number }> {
    return this.matchFts.all(fts, limit) as Array<{ id: number; rank: number }>
  }

  /** A chunk to show; none whose path leads out of the workspace (see workspacePath). */
  chunk(id: number): ChunkRow | undefined {
    const row = this.chunkById.get(id) as ChunkRow | null
    return row && workspacePath(row.path) ? row : undefined
  }

  /** For each word, the number of chunks holding it after stemming, as FTS5 counts them. */
  documentFrequencies(words: readonly string[]): number[] {
    this.db.run("DELETE FROM temp.stem")
    this.db.run("INSERT INTO temp.stem(rowid, x) VALUES (1, ?)", [words.join(" ")])
    const stems = new Map<number, string>()
    for (const row of this.db.query("SELECT term, offset FROM temp.stem_terms").all() as Array<{ term: string; offset: number }>) stems.set(row.offset, row.term)
    const doc = this.db.prepare("SELECT doc FROM fts_rows WHERE term = ?")
    return words.map((_word, i) => {
      const stem = stems.get(i)
      return stem === undefined ? 0 : ((doc.get(stem) as { doc: number } | null)?.doc ?? 0)
    })
  }

  chunkCount(): number {
    return (this.db.query("SELECT count(*) AS n FROM chunks").get() as { n: number }).n
  }

  close(): void {
    this.db.close(false)
  }
}

/**
 * The index's directory is writable by the sandboxed scripts of its workspace: one may have put a
 * symbolic link (or a FIFO) where the database or its WAL, shared-memory or journal file goes, for
 * a later clanka — one run with --sandbox off — to chmod or write the file it points to. Whatever
 * is there and not a regular file is removed (it is clanka's cache); the database is then opened
 * without following links.
 */
function clearLinks(location: string): void {
  for (const path of [location, `${location}-wal`, `${location}-shm`, `${location}-journal`]) {
    const info = lstatSync(path, { throwIfNoEntry: false })
    if (info && !info.isFile()) unlinkSync(path)
  }
}

/**
 * Whether an indexed path is one the indexer could have written: relative, inside the workspace.
 * The database is a file the workspace's scripts can write; a row of theirs naming `../../.ssh/…`
 * must not make a search read, show or embed a file outside it.
 */
export function workspacePath(path: unknown): path is string {
  return typeof path === "string" && path !== "" && !path.startsWith("/") && !path.includes("\0") && !path.split("/").includes("..")
}
