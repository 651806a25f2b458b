/**
 * The executor protocol's messages an executor's stdout carries, parsed, up to and including the
 * response to request `id` (or all of them, should the stream end first).
 */
export async function messagesUntil(stdout: ReadableStream<Uint8Array<ArrayBuffer>>, id: number | string): Promise<any[]> {
  const messages: any[] = []
  const reader = stdout.pipeThrough(new TextDecoderStream()).getReader()
  let partial = ""
  while (!messages.some((message) => message.id === id && !("method" in message))) {
    const { value, done } = await reader.read()
    if (done) break
    const lines = (partial + value).split("\n")
    partial = lines.pop()!
    messages.push(...lines.map((line) => JSON.parse(line)))
  }
  reader.releaseLock()
  return messages
}

/** The text the `execute/output` notifications among `messages` carried, in order. */
export function outputText(messages: readonly any[]): string {
  return messages.flatMap((message) => (message.method === "execute/output" ? [message.params.output.text as string] : [])).join("")
}
