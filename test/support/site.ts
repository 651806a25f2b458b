/** A web site on a random loopback port, for the tests of the web tools. */
export interface Site {
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  base: string
  stop(): Promise<void>
}

/** Serves `answer` (given each request and its parsed URL) until `stop()`. */
export function serveSite(answer: (request: Request, url: URL) => Response | Promise<Response>): Site {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => answer(request, new URL(request.url)),
  })
  return { base: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}
