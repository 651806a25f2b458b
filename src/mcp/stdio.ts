/**
 * A connection to a stdio MCP server: its command started as a child of this process, its stderr
 * kept for messages about its end. Whoever starts it decides how: the executor runs it as it is
 * (no OS sandbox), the process that starts a sandboxed executor wraps it in a sandbox of its own.
 */
import { resolve } from "node:path"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { StdioMcpServer } from "../contract.ts"
import { visible } from "../output/visible.ts"
import { McpConnection } from "./connection.ts"

const STDERR_TAIL_LINES = 5
/**
 * The largest message taken from a server (the SDK's own bound is 10 MB). Past it the SDK stops
 * the server; below it a result too large for the sandbox (8 MiB) fails only its call.
 */
export const MAX_MESSAGE_BYTES = 16 * 2 ** 20

export interface StdioLaunch {
  /** The directory a relative `cwd` is taken from (the workspace). */
  directory: string
  /** The environment the server's own `env` is added to. */
  env: Record<string, string>
  /** Added last (the server's `env` cannot change it): the tag that lets its end reach all it started. */
  tag: Record<string, string>
  /** Turns the server's command line into the one to run (an OS sandbox around it). */
  wrap?: (argv: string[], cwd: string) => string[]
}

export function stdioConnection(name: string, server: StdioMcpServer, launch: StdioLaunch): McpConnection {
  const cwd = resolve(launch.directory, server.cwd ?? ".")
  const argv = launch.wrap ? launch.wrap([server.command, ...(server.args ?? [])], cwd) : [server.command, ...(server.args ?? [])]
  const transport = new StdioClientTransport({
    command: argv[0]!,
    args: argv.slice(1),
    env: { ...launch.env, ...server.env, ...launch.tag },
    cwd,
    stderr: "pipe",
    maxBufferSize: MAX_MESSAGE_BYTES,
  })
  // "pipe": the SDK hands out the stream before the start, so no early line is lost.
  const stderr = transport.stderr!
  const lines: string[] = []
  let partial = ""
  stderr.on("data", (chunk: Buffer | string) => {
    const text = chunk.toString()
    const parts = (partial + text).split("\n")
    partial = parts.pop()!.slice(-2000)
        // Quoted in messages that reach a terminal and the prompt: no escape sequence of its own.
    for (const line of parts) if (line.trim()) lines.push(visible(line.trim().slice(0, 300)))
    lines.splice(0, Math.max(0, lines.length - STDERR_TAIL_LINES))
  })
  return new McpConnection(name, transport, () => (partial.trim() ? visible(partial.trim()) : lines.at(-1)))
}
