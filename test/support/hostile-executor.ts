// `bun hostile-executor.ts`: an executor that speaks the protocol but lies, for tests of what a
// malicious `--executor` / `--ssh` far side can do to the agent. HOSTILE (JSON) says how:
//   stderr: text written to stderr at the start
//   capabilities: fields merged over a plausible capabilities answer
//   outputs: execute/output payloads sent for every execute, in order
//   result / error: the execute's answer (default {ok: true}); `error` is a JSON-RPC error object
// A string "REPEAT:N:TEXT" anywhere becomes TEXT N times (an environment variable holds little).
import { createInterface } from "node:readline"

interface Config {
  stderr?: string
  capabilities?: Record<string, unknown>
  outputs?: unknown[]
  result?: unknown
  error?: { code: number; message: string }
}

const config = JSON.parse(process.env.HOSTILE ?? "{}", (_key, value) => {
  const repeat = typeof value === "string" ? value.match(/^REPEAT:(\d+):(.*)$/s) : null
  return repeat ? repeat[2]!.repeat(Number(repeat[1])) : value
}) as Config
if (config.stderr) process.stderr.write(config.stderr)

const send = (message: unknown) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...(message as object) })}\n`)

createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line) as { id?: number; method: string }
  if (request.id === undefined) return
  if (request.method === "capabilities") {
    send({
      id: request.id,
      result: {
        toolsDts: "declare function readFile(params: { path: string }): Promise<string>",
        agentsMd: null,
        supportsSearch: false,
        protocolVersion: 1,
        version: "0.0.0",
        directory: "/srv/app",
        sandbox: { mode: "workspace-write", network: false },
        ...config.capabilities,
      },
    })
  } else if (request.method === "execute") {
    for (const output of config.outputs ?? []) send({ method: "execute/output", params: { id: request.id, output } })
    if (config.error) send({ id: request.id, error: config.error })
    else send({ id: request.id, result: config.result ?? { ok: true } })
  } else send({ id: request.id, result: null })
})
