import { join } from "node:path"

export const ROOT = join(import.meta.dir, "../..")
export const BUN = process.execPath
export const MAIN = join(ROOT, "src/cli/main.ts")

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

type CliOptions = { cwd?: string; env?: Record<string, string | undefined>; stdin?: string; timeoutMs?: number }

/**
 * A compiled clanka to run instead of the source (test/sandbox/compiled-binary.test.ts runs the
 * sandbox's attack suites so): the binary takes a path the source does not (landlock-in-place.ts).
 */
export const COMPILED = process.env.CLANKA_TEST_BIN

/** clanka from source (or COMPILED), its output piped. */
function spawnClanka(args: string[], options: CliOptions) {
  return Bun.spawn([...(COMPILED ? [COMPILED] : [BUN, MAIN]), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
    timeout: options.timeoutMs ?? 20_000,
  })
}

/** Runs clanka (from source, or COMPILED) as a user would, and collects what it printed and its exit code. */
export async function clanka(
  args: string[],
  options: CliOptions = {},
): Promise<CliResult> {
  const child = spawnClanka(args, options)
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, stdout, stderr }
}

/** A line printed by clanka and when it arrived (ms since the process started). */
export interface TimedLine {
  at: number
  line: string
}

/** Like `clanka`, but notes when each line of stdout and stderr arrived (for streaming tests). */
export async function clankaTimed(
  args: string[],
  options: CliOptions = {},
): Promise<{ code: number; stdout: TimedLine[]; stderr: TimedLine[] }> {
  const started = performance.now()
  const child = spawnClanka(args, options)
  const lines = async (stream: ReadableStream<Uint8Array>) => {
    const result: TimedLine[] = []
    const decoder = new TextDecoder()
    let partial = ""
    for await (const chunk of stream) {
      const at = performance.now() - started
      const parts = (partial + decoder.decode(chunk, { stream: true })).split("\n")
      partial = parts.pop()!
      for (const line of parts) result.push({ at, line })
    }
    if (partial) result.push({ at: performance.now() - started, line: partial })
    return result
  }
  const [stdout, stderr, code] = await Promise.all([lines(child.stdout), lines(child.stderr), child.exited])
  return { code, stdout, stderr }
}

/** Builds the compiled clanka into `outfile`, as `bun scripts/build.ts --outfile` does; throws with the build's stderr. */
export async function buildClanka(outfile: string): Promise<void> {
  const build = Bun.spawn([BUN, join(ROOT, "scripts/build.ts"), "--outfile", outfile], { cwd: ROOT, stdout: "pipe", stderr: "pipe" })
  if ((await build.exited) !== 0) throw new Error(`build failed: ${await new Response(build.stderr).text()}`)
}
