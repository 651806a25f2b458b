/** Talks to a real `clanka executor` process line by line, the way a test needs to. */
import { afterAll, afterEach, beforeEach, expect } from "bun:test"
import { spawn, type ChildProcess } from "node:child_process"
import { join, resolve } from "node:path"

const REPO = resolve(import.meta.dir, "../..")
export const BUN = join(REPO, "node_modules/.bin/bun")
export const MAIN = join(REPO, "src/cli/main.ts")

export class RawSession {
  readonly child: ChildProcess
  readonly exited: Promise<number | null>
  stderr = ""
  private lines: string[] = []
  private waiting: (() => void) | undefined
  private partial = ""

  /** `args`: more `clanka executor` flags (`--sandbox workspace-write`). */
  constructor(directory: string, args: string[] = []) {
    this.child = spawn(BUN, [MAIN, "executor", "-C", directory, ...args], { stdio: ["pipe", "pipe", "pipe"] })
    this.child.stdout!.setEncoding("utf8")
    this.child.stdout!.on("data", (text: string) => {
      const parts = (this.partial + text).split("\n")
      this.partial = parts.pop()!
      this.lines.push(...parts)
      this.waiting?.()
    })
    this.child.stderr!.on("data", (chunk) => (this.stderr += chunk))
    this.child.stdin!.on("error", () => {}) // EPIPE once a test has stopped the executor
    this.exited = new Promise((done) => this.child.once("exit", (code) => done(code)))
  }

  /** Writes text as it is; add the newline yourself. */
  write(text: string | Buffer): void {
    this.child.stdin!.write(text)
  }

  send(message: unknown): void {
    this.write(JSON.stringify(message) + "\n")
  }

  /** The next line from the executor, parsed. */
  async next(timeoutMs = 5000): Promise<any> {
    const deadline = Date.now() + timeoutMs
    while (this.lines.length === 0) {
      if (Date.now() > deadline) throw new Error(`no line from the executor within ${timeoutMs} ms; stderr: ${this.stderr}`)
      await new Promise<void>((done) => {
        this.waiting = done
        setTimeout(done, 50)
      })
    }
    return JSON.parse(this.lines.shift()!)
  }

  /** Lines until (and including) the response with this id. */
  async until(id: number | string, timeoutMs = 5000): Promise<any[]> {
    const seen: any[] = []
    while (true) {
      const message = await this.next(timeoutMs)
      seen.push(message)
      if (message.id === id && !("method" in message)) return seen
    }
  }

  /** Sends a request and returns its response, checking nothing else arrived first. */
  async call(id: number | string, method: string, params?: unknown): Promise<any> {
    this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })
    return this.next()
  }

  async close(): Promise<number | null> {
    this.child.stdin!.end()
    return this.exited
  }
}

/**
 * A fresh executor for every test, so that what one test leaves behind (a running execute, an
 * unread line) cannot break the next. The next one is started while a test runs, which keeps the
 * file about as fast as one shared session. Each must exit 0 having written nothing on stderr.
 */
export function sessionPerTest(directory: () => string): () => RawSession {
  let current: RawSession | undefined
  let spare: RawSession | undefined
  beforeEach(() => {
    current = spare ?? new RawSession(directory())
    spare = new RawSession(directory())
  })
  afterEach(async () => {
    const session = current!
    current = undefined
    expect(await session.close()).toBe(0)
    expect(session.stderr).toBe("")
  })
  afterAll(async () => {
    await spare?.close()
  })
  return () => current!
}
