/**
 * Puts clanka on a host that lacks it, in one ssh call: the host says its platform (`uname -sm`),
 * is told the name of the build it needs (`VERSION-SHA`) and says whether its cache holds it;
 * only then does this side stream the binary (through gzip when the host has it), which the host
 * checks against the SHA-256, makes executable and moves into place in one rename, so a broken
 * copy is never run. The cache is `${XDG_CACHE_HOME:-$HOME/.cache}/clanka/bin/VERSION-SHA/clanka`
 * on the host, with `clanka.stamp` beside it (`SIZE SHA256`, written after the checked rename).
 *
 * Every start checks the cached copy cheaply before running it: the stamp says the size and full
 * SHA-256 this side expects, the file has that size, and it is not newer than its stamp. A copy
 * that fails (planted under that name, cut short, replaced later) is never run: the launch exits
 * 127 and the host gets a fresh upload. Hashing the whole file on every start would be the full
 * check, but costs about a second for 100 MB on a small host; the upload hashes it once.
 */
import { spawn } from "node:child_process"
import { createReadStream } from "node:fs"
import { pipeline } from "node:stream/promises"
import { createGzip } from "node:zlib"
import { ExecutorLostError } from "../contract.ts"
import { readFrames } from "../protocol/framing.ts"
import { seconds } from "../util/duration.ts"
import { VERSION } from "../version.ts"
import { visible } from "../output/visible.ts"
import { withoutAgentKeys } from "./executor-env.ts"
import { type Binary, binaryFor, ownTarget, targetOf } from "./self-binary.ts"

/** The host's cache directory of one build, as a shell expression. */
const CACHE = '"${XDG_CACHE_HOME:-$HOME/.cache}/clanka/bin"'

/**
 * The host's half of the conversation, for sh. One line, no backslashes: whatever the login shell
 * (bash, zsh, fish, csh), the single-quoted word reaches sh unchanged.
 */
const RECEIVE = [
  "uname -sm 2>/dev/null || echo unknown",
  "read -r name sum size || exit 0",
  'case $name in ""|.*|*[!A-Za-z0-9._-]*) echo "bad $name"; exit 2;; esac',
  'case $size in ""|*[!0-9]*) echo "bad $size"; exit 2;; esac',
  `d=${CACHE}/$name`,
  `if ${stampMatches('"$d"', '"$size $sum"', '"$size"')}; then echo "cached $d/clanka"; exit 0; fi`,
  // Something else under that name (planted, cut short) is replaced, and said so.
  'w=missing; if [ -e "$d/clanka" ] || [ -L "$d/clanka" ]; then w=stale; fi',
  'if command -v gzip >/dev/null 2>&1; then echo "$w gzip"; else echo "$w plain"; fi',
  "read -r how || exit 0",
  'case $how in gzip|plain) ;; *) exit 0;; esac',
  'mkdir -p "$d" || exit 1',
  't="$d/.clanka.$$"',
  // A dropped link (SIGHUP) must not leave the partial copy behind either.
  "trap 'rm -f \"$t\"' EXIT",
  "trap 'exit 1' HUP INT TERM PIPE",
  'if [ "$how" = gzip ]; then gzip -dc > "$t"; else cat > "$t"; fi || exit 1',
  's=$(sha256sum "$t" 2>/dev/null || shasum -a 256 "$t" 2>/dev/null || echo none)',
  'if [ "${s%% *}" != "$sum" ]; then echo "mismatch ${s%% *}"; exit 1; fi',
  'rm -rf "$d/clanka.stamp" "$d/clanka"',
  'chmod 755 "$t" && mv -f "$t" "$d/clanka" || exit 1',
  'echo "$size $sum" > "$d/clanka.stamp" && echo "installed $d/clanka"',
].join("; ")

/**
 * A sh condition: the cached copy in directory `dir` is a regular executable file of `size` bytes,
 * not newer than its stamp, whose text is `stamp` (`SIZE SHA256`). Arguments are sh words.
 */
function stampMatches(dir: string, stamp: string, size: string): string {
  const file = `${dir}/clanka`
  return `[ -f ${file} ] && [ -x ${file} ] && [ "$(cat ${dir}/clanka.stamp 2>/dev/null)" = ${stamp} ] && [ "$(wc -c < ${file} | tr -d " ")" = ${size} ] && ! [ ${file} -nt ${dir}/clanka.stamp ]`
}

/** What this side knows of a build in the host's cache: its directory name, size and SHA-256. */
export type CachedBuild = Pick<Binary, "cacheName" | "size" | "sha256">

/**
 * The remote command that starts the executor: `remoteBin` when the host has it, else the cached
 * upload of `build` when its stamp and size match, else exit 127 (which makes the caller upload).
 * `bin` and `args` are already quoted for sh.
 */
export function launchCommand(bin: string, args: string[], build: CachedBuild): string {
  const script = [
    `b=${bin}`,
    `if command -v "$b" >/dev/null 2>&1; then exec "$b" ${args.join(" ")}; fi`,
    `d=${CACHE}/${build.cacheName}`,
    `if ${stampMatches('"$d"', `"${build.size} ${build.sha256}"`, `"${build.size}"`)}; then exec "$d/clanka" ${args.join(" ")}; fi`,
    `echo "sh: $b: not found" >&2`,
    "exit 127",
  ].join("; ")
  return `sh -c ${singleQuote(script)}`
}

export interface UploadOptions {
  host: string
  /** What the host lacked (`clanka`, or --remote-bin), for messages. */
  remoteBin: string
  /** This clanka's compiled executable. */
  self: string
  /** The ssh command line up to (without) the remote command. */
  ssh: string[]
  /** Progress; a terminal gets a percentage that updates in place. */
  progress: { write(text: string): unknown; isTTY?: boolean }
}

/** Makes sure the host has this clanka's build (or the one for its platform); returns which. */
export async function uploadSelf(options: UploadOptions): Promise<CachedBuild> {
  const { host, progress } = options
  const child = spawn(options.ssh[0]!, [...options.ssh.slice(1), `sh -c ${singleQuote(RECEIVE)}`], { stdio: ["pipe", "pipe", "pipe"], env: withoutAgentKeys() })
  child.stdin.on("error", () => {}) // the host hung up; its exit says why
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr = (stderr + text).slice(-4096)))
  const exited = new Promise<number | null>((resolve) => {
    child.once("error", () => resolve(null))
    child.once("close", (code) => resolve(code))
  })
  const lines = readFrames(child.stdout, 64 * 1024)[Symbol.asyncIterator]()
  const failed = async (what: string) => {
    child.stdin.destroy()
    const code = await exited
    const said = stderr.trim().split("\n").at(-1)?.trim().replace(/[.;]+$/, "")
    if (code === 255) return new ExecutorLostError(`cannot connect to ${host} with ssh${said ? `: ${said}` : ""}; check that \`ssh ${host}\` works`)
    return new ExecutorLostError(`copying clanka to ${host} failed: ${what}${said ? ` (${said})` : ""}; check the host and run again`)
  }
  const hangUp = async () => {
    child.stdin.end()
    await exited
  }
  const next = async (): Promise<string | undefined> => {
    const frame = await lines.next()
    return frame.done || !("line" in frame.value) ? undefined : frame.value.line.trim()
  }
  try {
    const uname = await next()
    if (uname === undefined) throw await failed("the host did not say its platform")
    const target = targetOf(uname)
    if (!target) {
      await hangUp()
      throw new ExecutorLostError(
        `\`${options.remoteBin}\` was not found on ${host}, which runs ${JSON.stringify(uname)}: there is no clanka build for it; install clanka there or pass --remote-bin PATH`,
      )
    }
    const binary = await binaryFor(options.self, target)
    if (!binary) {
      await hangUp()
      throw new ExecutorLostError(
        `\`${options.remoteBin}\` was not found on ${host}, which is ${target} while this clanka is ${ownTarget()}: put clanka-${target} (bun scripts/build.ts --all) beside ${options.self}, or install clanka on ${host}`,
      )
    }
    child.stdin.write(`${binary.cacheName} ${binary.sha256} ${binary.size}\n`)
    const found = await next()
    if (found?.startsWith("cached ")) {
      await hangUp()
      return binary
    }
    const [state, how] = found?.split(" ") ?? []
    if ((state !== "missing" && state !== "stale") || (how !== "gzip" && how !== "plain")) throw await failed(`unexpected reply ${JSON.stringify(found ?? "")}`)
    const gzip = how === "gzip"
    child.stdin.write(gzip ? "gzip\n" : "plain\n")
    const started = Date.now()
    const megabytes = `${(binary.size / 1e6).toFixed(1)} MB`
    const copying = `copying clanka ${VERSION} (${binary.target}, ${megabytes}${gzip ? ", gzip" : ""}) there`
    const intro =
      state === "stale"
        ? `clanka: the copy of clanka in ${host}'s cache does not match the stamp written when it was copied; ${copying} again`
        : `clanka: ${options.remoteBin} is not on ${host}: ${copying}`
    // On a terminal a short line below it counts up in place (short: a long one would wrap).
    progress.write(progress.isTTY ? `${intro}\n  0%` : `${intro}\n`)
    let sent = 0
    let shown = 0
    const source = createReadStream(binary.path)
    source.on("data", (chunk) => {
      sent += chunk.length
      const percent = Math.floor((sent / binary.size) * 100)
      if (progress.isTTY && percent > shown) progress.write(`\r  ${(shown = percent)}%`)
    })
    try {
      await pipeline(source, ...(gzip ? [createGzip()] : []), child.stdin)
    } catch {
      // The host stopped reading: its reply and exit say why.
    }
    const installed = await next()
    if (progress.isTTY) progress.write("\n")
    if (installed?.startsWith("mismatch ")) {
      const theirs = installed.slice("mismatch ".length)
      throw await failed(
        theirs === "none"
          ? `${host} has neither sha256sum nor shasum to check the copy with`
          : `the copy's SHA-256 is ${theirs}, not ${binary.sha256} (it was damaged on the way)`,
      )
    }
    if (!installed?.startsWith("installed ")) throw await failed("the host did not confirm the copy")
    await exited
    // The path is the host's word: no escape sequence of its own reaches the terminal.
    const where = visible(installed.slice("installed ".length))
    progress.write(`clanka: copied to ${host}:${where} in ${seconds(Date.now() - started, 1)}; later runs use it\n`)
    return binary
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM")
  }
}

function singleQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}
