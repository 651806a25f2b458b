/**
 * The worker's model gate: a loopback HTTP relay in front of the providers' APIs that takes a
 * slot of the queue's rate limit before each request it passes on. A task's `clanka run` is
 * pointed at it through ANTHROPIC_BASE_URL and OPENAI_BASE_URL, so every model request of every
 * task (sub-agents, compaction and retries included) is counted without the run knowing. The
 * keys travel in the requests' headers as before, over loopback only; responses stream through.
 */
import { baseUrlFrom } from "../../providers/base-url.ts"
import { errorMessage } from "../../util/error-message.ts"

export interface Limiter {
  acquire(signal?: AbortSignal): Promise<void>
}

export interface ModelGate {
  /** The variables that point a run at the gate. */
  env: Record<string, string>
  close(): Promise<void>
}

/** Headers that describe the body as the upstream sent it, which the relay changes. */
const HOP_HEADERS = ["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"]

export function startModelGate(limiter: Limiter, env: Record<string, string | undefined> = process.env): ModelGate {
  // The real APIs: the worker's own settings, else the providers' defaults.
  const upstreams: Record<string, string> = {
    anthropic: baseUrlFrom(env, "ANTHROPIC_BASE_URL", "https://api.anthropic.com") ?? "https://api.anthropic.com",
    openai: baseUrlFrom(env, "OPENAI_BASE_URL", "https://api.openai.com/v1") ?? "https://api.openai.com/v1",
  }
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // A model may think for minutes between streamed events.
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url)
      const [, provider, ...rest] = url.pathname.split("/")
      const upstream = upstreams[provider ?? ""]
      if (!upstream) return problem(404, `no provider at ${url.pathname}`)
      try {
        await limiter.acquire(request.signal)
      } catch (error) {
        // 503 is retried by the run like any overloaded API.
        return problem(503, `clanka worker: the rate limiter is unavailable: ${errorMessage(error)}`)
      }
      const headers = new Headers(request.headers)
      headers.delete("host")
      headers.delete("content-length")
      headers.set("accept-encoding", "identity")
      try {
        const response = await fetch(`${upstream.replace(/\/+$/, "")}/${rest.join("/")}${url.search}`, {
          method: request.method,
          headers,
          ...(request.method === "GET" || request.method === "HEAD" ? {} : { body: await request.arrayBuffer() }),
          signal: request.signal,
        })
        const out = new Headers(response.headers)
        for (const name of HOP_HEADERS) out.delete(name)
        return new Response(response.body, { status: response.status, statusText: response.statusText, headers: out })
      } catch (error) {
        return problem(502, `clanka worker: ${upstream} did not answer: ${errorMessage(error)}`)
      }
    },
  })
  const origin = `http://127.0.0.1:${server.port}`
  return {
    env: { ANTHROPIC_BASE_URL: `${origin}/anthropic`, OPENAI_BASE_URL: `${origin}/openai` },
    close: async () => {
      await server.stop(true)
    },
  }
}

function problem(status: number, message: string): Response {
  return Response.json({ type: "error", error: { type: "api_error", message } }, { status })
}
