// A deterministic OpenAI-style /v1/embeddings server for tests: a text's vector counts its words
// by "concept" (a few hand-made groups of related words, so that texts sharing no word can still be
// near), plus a small hashed share for every other word. It tests the mechanics of embedding
// search (requests, storage, fusion), not the quality of any real model.

const CONCEPTS = [
  ["rate", "limiting", "throttle", "throttled", "debounce", "often", "frequency"],
  ["retry", "again", "backoff", "attempt", "attempts"],
  ["invoice", "tax", "billing", "total", "vat"],
]
const DIMENSIONS = 16

export function fakeVector(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0)
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const concept = CONCEPTS.findIndex((group) => group.includes(word))
    if (concept !== -1) vector[concept]! += 1
    else {
      let hash = 0
      for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) >>> 0
      vector[CONCEPTS.length + (hash % (DIMENSIONS - CONCEPTS.length))]! += 0.05
    }
  }
  return vector
}

export interface EmbeddingRequest {
  model: string
  input: string[]
  authorization: string | null
}

export function serveFakeEmbeddings(options: { fail?: () => boolean } = {}) {
  const requests: EmbeddingRequest[] = []
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url)
      if (url.pathname !== "/v1/embeddings" || request.method !== "POST") return new Response("not found", { status: 404 })
      const body = (await request.json()) as { model: string; input: string | string[] }
      const input = [body.input].flat()
      requests.push({ model: body.model, input, authorization: request.headers.get("authorization") })
      if (options.fail?.()) return Response.json({ error: { message: "the embedding server is down", type: "server_error" } }, { status: 400 })
      return Response.json({
        object: "list",
        model: body.model,
        data: input.map((text, index) => ({ object: "embedding", index, embedding: fakeVector(text) })),
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      })
    },
  })
  return { base: `http://127.0.0.1:${server.port}/v1`, requests, stop: () => server.stop(true) }
}
