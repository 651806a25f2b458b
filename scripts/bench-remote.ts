/**
 * Benchmarks of `--ssh` to a host without clanka, over a loopback sshd; prints medians.
 *   node_modules/.bin/bun scripts/bench-remote.ts [--runs N] [--uploads N]
 * - the SHA-256 of the compiled binary, hashed and remembered (every --ssh run needs it);
 * - a first run that copies the binary into the host's cache (gzip over ssh, check, rename);
 * - a later run that finds the copy (`clanka exec --ssh HOST -e 1`, wall), against the same run
 *   with the cached path as --remote-bin and --no-upload (the plain command, no lookup).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { median } from "./stats.ts"
import { startSshd } from "../test/support/sshd.ts"

const { values } = parseArgs({ options: { runs: { type: "string", default: "15" }, uploads: { type: "string", default: "3" } } })
const runs = Number(values.runs)
const uploads = Number(values.uploads)
const root = join(import.meta.dir, "..")
const dir = mkdtempSync(join(tmpdir(), "clanka-bench-remote-"))
const bin = join(dir, "clanka")
const sshd = await startSshd()

try {
  const build = Bun.spawnSync([process.execPath, join(root, "scripts/build.ts"), "--outfile", bin], { cwd: root })
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr}`)
  const env = { ...process.env, ...sshd.env, XDG_CACHE_HOME: join(dir, "local-cache") }

  // The digest as the ssh path takes it: the first run hashes, later ones read the memo.
  const digestMs = async () => {
    const started = performance.now()
    const child = Bun.spawn([bin, "exec", "--ssh", `${sshd.downAlias}:/`, "-e", "1"], { env, stdout: "ignore", stderr: "ignore" })
    await child.exited
    return performance.now() - started
  }
  const cold: number[] = []
  const warm: number[] = []
  for (let i = 0; i < 5; i++) {
    rmSync(join(dir, "local-cache"), { recursive: true, force: true })
    cold.push(await digestMs())
    warm.push(await digestMs())
  }

  const wall = async (args: string[]): Promise<number> => {
    const started = performance.now()
    const child = Bun.spawn([bin, ...args], { env, stdout: "pipe", stderr: "pipe" })
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
    if (code !== 0) throw new Error(`clanka ${args.join(" ")} failed (${code}): ${stderr}`)
    return performance.now() - started
  }
  const target = `${sshd.alias}:${dir}`
  const first: number[] = []
  for (let i = 0; i < uploads; i++) {
    rmSync(sshd.remoteCache, { recursive: true, force: true })
    first.push(await wall(["exec", "--ssh", target, "-e", "1"]))
  }
  const cached = Bun.spawnSync(["sh", "-c", `ls ${sshd.remoteCache}/clanka/bin/*/clanka`]).stdout.toString().trim()
  const later: number[] = []
  const direct: number[] = []
  for (let i = 0; i < runs; i++) {
    later.push(await wall(["exec", "--ssh", target, "-e", "1"]))
    direct.push(await wall(["exec", "--ssh", target, "--no-upload", "--remote-bin", cached, "-e", "1"]))
  }
  const size = Bun.file(bin).size
  const ms = (value: number) => `${value.toFixed(0)} ms`
  console.log(`binary: ${(size / 1e6).toFixed(1)} MB`)
  console.log(`--ssh to an unreachable host (the SHA-256 before ssh): first run ${ms(median(cold))}, remembered ${ms(median(warm))} (+${ms(median(cold) - median(warm))} to hash)`)
  console.log(`first run, copying the binary to the host (${uploads} runs): ${ms(median(first))}`)
  console.log(`later run, the cached copy found (${runs} runs): ${ms(median(later))}`)
  console.log(`same with --remote-bin CACHED --no-upload (no lookup): ${ms(median(direct))} (lookup +${ms(median(later) - median(direct))})`)
} finally {
  await sshd.stop()
  rmSync(dir, { recursive: true, force: true })
}
