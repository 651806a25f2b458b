#!/usr/bin/env bun
// Builds the single clanka executable. `bun scripts/build.ts` builds for this machine into
// dist/clanka; `--outfile PATH` writes it to PATH instead (tests build into their own directory,
// so that nobody else's build races them); `--all` also cross-compiles every release target
// into dist/ and writes dist/SHA256SUMS.
import { $ } from "bun"
import { createHash } from "node:crypto"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"

const root = join(import.meta.dir, "..")
const dist = join(root, "dist")
// The sandbox worker is a second entry point: Bun embeds it and resolves `new Worker(new URL(…))`.
const entries = [join(root, "src/cli/main.ts"), join(root, "src/sandbox/worker.ts")]

const targets: Record<string, string> = {
  "linux-x64": "bun-linux-x64",
  "linux-arm64": "bun-linux-arm64",
  "darwin-x64": "bun-darwin-x64",
  "darwin-arm64": "bun-darwin-arm64",
  "windows-x64": "bun-windows-x64",
}

async function build(outfile: string, target?: string): Promise<void> {
  // Bytecode spares parsing at start-up; splitting keeps the modules that `--version` and `exec`
  // never load (model SDKs, the agent) out of the start path: 8 ms instead of 15 ms here.
  // A compiled Bun program would read the .env files and bunfig.toml of the directory it starts
  // in: a repository's .env could point the model's base URL (with the user's key) anywhere and
  // its bunfig.toml preload code into the agent. clanka reads neither (nor tsconfig or package.json).
  const noAutoload = ["--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", "--no-compile-autoload-tsconfig", "--no-compile-autoload-package-json"]
  // Each process's main thread starts with JavaScriptCore's tier-up thresholds ten times higher,
  // until src/cli/main.ts sets them back a second in (sandbox workers start normal): less CPU
  // spent compiling start-up code, on the path of every run (BENCHMARKS.md).
  const flags = ["--compile", "--minify", "--format=esm", "--bytecode", "--splitting", "--compile-jit-policy=10", ...noAutoload, "--define", "CLANKA_COMPILED=true", ...(target ? [`--target=${target}`] : [])]
  await $`${process.execPath} build ${flags} ${entries} --outfile ${outfile}`.cwd(root).quiet()
  console.log(`built ${outfile.replace(root + "/", "")}`)
}

function outfileArg(args: string[]): string | undefined {
  const at = args.findIndex((arg) => arg === "--outfile" || arg.startsWith("--outfile="))
  if (at < 0) return undefined
  const value = args[at]!.includes("=") ? args[at]!.slice("--outfile=".length) : args[at + 1]
  if (!value || value.startsWith("-")) {
    console.error("build: --outfile takes the path of the executable to write")
    process.exit(2)
  }
  return resolve(value)
}

const outfile = outfileArg(process.argv.slice(2)) ?? join(dist, "clanka")
await mkdir(dirname(outfile), { recursive: true })
await build(outfile)

if (process.argv.includes("--all")) {
  await mkdir(dist, { recursive: true })
  const sums: string[] = []
  for (const [name, target] of Object.entries(targets)) {
    const outfile = join(dist, `clanka-${name}${name.startsWith("windows") ? ".exe" : ""}`)
    await build(outfile, target)
    const digest = createHash("sha256").update(await readFile(outfile)).digest("hex")
    sums.push(`${digest}  ${basename(outfile)}`)
  }
  await writeFile(join(dist, "SHA256SUMS"), sums.join("\n") + "\n")
  console.log("wrote dist/SHA256SUMS")
}
