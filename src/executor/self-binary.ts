/**
 * The clanka executable that can be copied to a host that lacks clanka: this compiled binary, or
 * the `clanka-TARGET` built beside it for another platform (`bun scripts/build.ts --all`), and the
 * name it is cached under there, `VERSION-SHA`.
 */
import { createReadStream } from "node:fs"
import { mkdir, readFile, stat, writeFile } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { cacheDirectory } from "../util/home.ts"
import { VERSION } from "../version.ts"

/** The release targets as `bun scripts/build.ts --all` names them (`clanka-TARGET`). */
export const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"] as const

export interface Binary {
  path: string
  /** `linux-x64`, … */
  target: string
  size: number
  sha256: string
  /** The directory name on the host: `VERSION-` and the first 16 hex digits of the SHA-256. */
  cacheName: string
}


/** This machine's target name. */
export function ownTarget(): string {
  return `${process.platform}-${process.arch}`
}

/** `uname -sm` to a target name; undefined for a platform there is no build for. */
export function targetOf(uname: string): string | undefined {
  const [system = "", machine = ""] = uname.trim().split(/\s+/)
  const os = { Linux: "linux", Darwin: "darwin" }[system]
  const arch = { x86_64: "x64", amd64: "x64", aarch64: "arm64", arm64: "arm64" }[machine]
  return os && arch ? `${os}-${arch}` : undefined
}

/** The binary for `target`: this one, or `clanka-TARGET` beside it; undefined when neither. */
export async function binaryFor(self: string, target: string): Promise<Binary | undefined> {
  // `clanka` → `clanka-linux-arm64`; so does `clanka-linux-x64` (the --all name of this one).
  const stem = TARGETS.reduce((name, known) => (name.endsWith(`-${known}`) ? name.slice(0, -known.length - 1) : name), basename(self))
  const path = target === ownTarget() ? self : join(dirname(self), `${stem}-${target}`)
  const info = await stat(path).catch(() => undefined)
  if (!info?.isFile()) return undefined
  const sha256 = await digest(path, info, path === self)
  return { path, target, size: info.size, sha256, cacheName: `${VERSION}-${sha256.slice(0, 16)}` }
}

/**
 * The SHA-256 of a file. This binary's own is remembered in the local cache (keyed by its inode,
 * size and time), since every `--ssh` run needs it and hashing 100 MB costs about 0.2 s.
 */
async function digest(path: string, info: { ino: number; size: number; mtimeMs: number }, remember: boolean): Promise<string> {
  const key = `${path}\0${info.ino}\0${info.size}\0${info.mtimeMs}`
  const memo = join(cacheDirectory(), "clanka", "self.sha256")
  if (remember) {
    const saved = await readFile(memo, "utf8").catch(() => "")
    const [savedKey, sha] = saved.split("\n")
    if (savedKey === key && sha && /^[0-9a-f]{64}$/.test(sha)) return sha
  }
  const hash = new Bun.CryptoHasher("sha256")
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  const sha = hash.digest("hex")
  if (remember) {
    // Best effort: a read-only cache costs the hash next time, nothing more.
    await mkdir(dirname(memo), { recursive: true })
      .then(() => writeFile(memo, `${key}\n${sha}\n`))
      .catch(() => {})
  }
  return sha
}
