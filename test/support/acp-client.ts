/**
 * An editor for `clanka acp` tests: the official SDK's client side, connected to a clanka child
 * process (from source with bun, or a compiled binary) over its stdio.
 *
 *   const editor = await startAcp(["-m", "anthropic/claude-sonnet-4-5"], { env })
 *   await editor.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 })
 *   const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] })
 *   editor.updates(sessionId) // every session/update's `update` for that session, in order
 *   await editor.close()      // closes stdin; resolves with the exit code
 */
import * as acp from "@agentclientprotocol/sdk"
import { BUN, MAIN, ROOT } from "./cli.ts"

export { acp }

export interface AcpEditor {
  agent: acp.ClientContext
  updates(sessionId: string): acp.SessionUpdate[]
  /** Resolves once `count` updates of the session have arrived. */
  waitForUpdates(sessionId: string, count: number, timeoutMs?: number): Promise<acp.SessionUpdate[]>
  stderr(): Promise<string>
  pid: number
  close(): Promise<number>
}

export async function startAcp(args: string[], options: { env?: Record<string, string | undefined>; bin?: string; cwd?: string } = {}): Promise<AcpEditor> {
  const command = options.bin ? [options.bin, "acp", ...args] : [BUN, MAIN, "acp", ...args]
  const child = Bun.spawn(command, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  })
  const stderr = new Response(child.stderr).text()
  const received = new Map<string, acp.SessionUpdate[]>()
  const waiters = new Set<() => void>()
  const input = new WritableStream<Uint8Array>({
    async write(chunk) {
      child.stdin.write(chunk)
      await child.stdin.flush()
    },
    close() {
      child.stdin.end()
    },
  })
  const app = acp.client({ name: "test-editor" }).onNotification(acp.methods.client.session.update, ({ params }) => {
    const list = received.get(params.sessionId) ?? []
    list.push(params.update)
    received.set(params.sessionId, list)
    for (const wake of waiters) wake()
  })
  const connection = app.connect(acp.ndJsonStream(input, child.stdout as ReadableStream<Uint8Array>))
  return {
    agent: connection.agent,
    pid: child.pid,
    updates: (sessionId) => received.get(sessionId) ?? [],
    waitForUpdates(sessionId, count, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`timed out waiting for ${count} updates; got ${JSON.stringify(received.get(sessionId) ?? [])}`))
        }, timeoutMs)
        const check = () => {
          const list = received.get(sessionId) ?? []
          if (list.length < count) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve(list)
        }
        waiters.add(check)
        check()
      })
    },
    stderr: () => stderr,
    async close() {
      child.stdin.end()
      const code = await Promise.race([child.exited, Bun.sleep(15_000).then(() => "hung" as const)])
      connection.close()
      if (code === "hung") {
        child.kill()
        throw new Error("clanka acp did not exit after stdin closed")
      }
      return code
    },
  }
}
