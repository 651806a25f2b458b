// The ripgrep engine: runs `rg --json --sort path` in the directory and renders its matches with
// the same SearchResults the built-in search uses. Once the cap is reached rg is killed: a broad
// pattern over a big tree costs no more than a narrow one.
import { CancelledError, ToolError } from "../../errors.ts"
import { killGroup } from "../processes.ts"
import type { ToolContext } from "../tool.ts"
import { CLIP_AT, invalidRegexMessage, SearchResults, stripLineEnd, type MatchedLine, type SearchRequest } from "./results.ts"

/** Arguments that make rg select files exactly as the built-in walk does. */
export function ripgrepArgs(request: SearchRequest): string[] {
  const args = [
    "--json",
    "--sort=path",
    "--max-filesize=1M",
    "--no-config",
    "--no-messages",
    // .gitignore counts outside a git repository too, and machine-wide ignores never do.
    "--no-require-git",
    "--no-ignore-global",
  ]
  for (const glob of request.globs) args.push("--glob", glob)
  args.push("--regexp", request.pattern)
  return args
}

interface RgText {
  text?: string
  bytes?: string
}

function decode(value: RgText | undefined): Buffer | string {
  if (value?.text !== undefined) return value.text
  return Buffer.from(value?.bytes ?? "", "base64")
}

function asString(value: Buffer | string): string {
  return typeof value === "string" ? value : value.toString("utf8")
}

export async function ripgrepSearch(request: SearchRequest, ctx: Pick<ToolContext, "directory" | "signal" | "processes">): Promise<string> {
  if (ctx.signal.aborted) throw new CancelledError()
  const results = new SearchResults(request)
  const child = ctx.processes.spawn("rg", ripgrepArgs(request), { cwd: ctx.directory })
  const onAbort = () => killGroup(child)
  ctx.signal.addEventListener("abort", onAbort, { once: true })
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject)
    child.once("close", (code) => resolve(code))
  })
  let stderr = ""
  child.stderr!.setEncoding("utf8")
  child.stderr!.on("data", (chunk: string) => {
    if (stderr.length < 10_000) stderr += chunk
  })

  let done = false
  let current: { path: string; lines: MatchedLine[] } | undefined
  const handle = (line: string) => {
    const message = JSON.parse(line) as { type: string; data: any }
    const data = message.data
    if (message.type === "begin") current = { path: asString(decode(data.path)), lines: [] }
    else if (message.type === "match" && current) {
      const raw = decode(data.lines)
      const text = stripLineEnd(asString(raw))
      let column = 0
      if (text.length > CLIP_AT) {
        // rg reports byte offsets; the clipping works on string indices.
        const bytes = typeof raw === "string" ? Buffer.from(raw) : raw
        column = bytes.subarray(0, data.submatches?.[0]?.start ?? 0).toString("utf8").length
      }
      current.lines.push({ line: data.line_number, text, column })
    } else if (message.type === "end" && current) {
      // A NUL byte seen while searching makes the file binary: skipped whole, like the built-in.
      if (data.binary_offset == null && !results.add(current.path, current.lines)) done = true
      current = undefined
    }
  }

  try {
    let pending = ""
    child.stdout!.setEncoding("utf8")
    for await (const chunk of child.stdout!) {
      pending += chunk as string
      let start = 0
      let newline: number
      while (!done && (newline = pending.indexOf("\n", start)) !== -1) {
        handle(pending.slice(start, newline))
        start = newline + 1
      }
      pending = pending.slice(start)
      if (done) break
    }
    if (done) killGroup(child)
    const code = await exited
    if (ctx.signal.aborted) throw new CancelledError()
    // Exit 2 with nothing on stderr: only suppressed messages, e.g. "no files were searched".
    if (!done && code !== 0 && code !== 1 && stderr.trim() !== "") {
      const detail = rgErrorDetail(stderr)
      if (/regex|parse error/i.test(stderr)) throw new ToolError(invalidRegexMessage(request.pattern, detail))
      throw new ToolError(detail)
    }
    return results.render()
  } catch (error) {
    if ((error as NodeJS.ErrnoException)?.code === "ENOENT") throw new ToolError("the rg binary is not installed")
    throw error
  } finally {
    ctx.signal.removeEventListener("abort", onAbort)
    if (child.exitCode === null && child.signalCode === null) killGroup(child)
  }
}

/** rg's multi-line regex errors end in `error: <what>`; that line is the one worth showing. */
function rgErrorDetail(stderr: string): string {
  const lines = stderr.split("\n").map((line) => line.trim()).filter(Boolean)
  const error = lines.find((line) => line.startsWith("error: "))
  if (error) return error.slice("error: ".length)
  return lines.at(-1)?.replace(/^rg: /, "") ?? ""
}
