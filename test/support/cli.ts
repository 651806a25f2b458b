import { join } from "node:path"

export const ROOT = join(import.meta.dir, "../..")
export const BUN = process.execPath
export const MAIN = join(ROOT, "src/cli/main.ts")

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs clanka from source as a user would, and collects what it printed and its exit code. */
export async function clanka(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; stdin?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const child = Bun.spawn([BUN, MAIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
    timeout: options.timeoutMs ?? 20_000,
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, stdout, stderr }
}
