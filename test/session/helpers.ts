import { mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { clanka, type CliResult } from "../support/cli.ts"
import { startFakeModel, type FakeReply, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

export const finish = (summary: string): FakeReply => ({ blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(summary)})` }] })

export function events(result: CliResult): any[] {
  return result.stdout.trimEnd().split("\n").filter(Boolean).map((line) => JSON.parse(line))
}

export function transcript(home: string, id: string): any[] {
  return readFileSync(join(home, "sessions", `${id}.jsonl`), "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
}

export function sessionFiles(home: string): string[] {
  try {
    return readdirSync(join(home, "sessions")).sort()
  } catch {
    return []
  }
}

/** A fake Anthropic server and the env that points clanka at it, with sessions under `home`. */
export async function serve(turns: FakeTurn[], home: string): Promise<{ server: FakeServer; env: Record<string, string> }> {
  const server = await startFakeModel("anthropic", turns)
  return { server, env: { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: home } }
}

/** A test file's directories: `root` with a `work` workspace (and `others`), a fresh CLANKA_HOME per call of `freshHome`. */
export function testbed(prefix: string, others: string[] = []): { root: string; workspace: string; freshHome: () => string } {
  const root = temporaryDirectory(prefix)
  for (const name of ["work", ...others]) mkdirSync(join(root, name))
  let n = 0
  return { root, workspace: join(root, "work"), freshHome: () => join(root, `home${++n}`) }
}

/** The user and tool texts of an Anthropic request, as the model saw its history. */
export function historyOf(body: any): string[] {
  return body.messages.flatMap((message: any) =>
    message.content.map((block: any) =>
      block.type === "text" ? `${message.role}: ${block.text}` : block.type === "tool_result" ? `result: ${block.content}` : `call: ${block.input.script}`,
    ),
  )
}

export { clanka }
