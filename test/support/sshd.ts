/**
 * A real OpenSSH server on a random loopback port for end-to-end tests of `--ssh`: throwaway host
 * and user keys, and an ssh config with a Host alias. ssh reads the config of the user's passwd
 * home, not $HOME, so the config reaches clanka's `ssh` through a wrapper put first on PATH.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { connect, createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"

export const SSHD = "/usr/sbin/sshd"
const REPO = resolve(import.meta.dir, "../..")
export const BUN = join(REPO, "node_modules/.bin/bun")
export const MAIN = join(REPO, "src/cli/main.ts")

export interface Sshd {
  /** Host alias in the generated ssh config: `clanka exec --ssh ${alias}:DIR`. */
  alias: string
  /** An alias whose port nothing listens on: ssh cannot connect. */
  downAlias: string
  port: number
  /** Temporary directory holding keys, configs and wrappers. */
  dir: string
  /** Environment for running clanka: PATH starts with an `ssh` that uses the generated config. */
  env: Record<string, string>
  /** argv prefix that runs ssh with the generated config (for the test's own ssh calls). */
  ssh: string[]
  /**
   * The far side's XDG_CACHE_HOME (sshd sets it for every session), so that uploads of clanka go
   * here and never into the real home's ~/.cache.
   */
  remoteCache: string
  /** Comes first on the far side's PATH (empty: a test may put commands there, e.g. a fake uname). */
  remotePath: string
  stop(): Promise<void>
}

/**
 * Whether the sshd tests can run. Under CI a missing sshd is an error, not a skip: the CI
 * script installs openssh-server, and a silently skipped test proves nothing.
 */
export function sshdAvailable(): boolean {
  if (existsSync(SSHD)) return true
  if (process.env.CI) throw new Error(`${SSHD} is missing; install openssh-server (apt-get install -y openssh-server)`)
  return false
}

export async function startSshd(): Promise<Sshd> {
  const dir = mkdtempSync(join(tmpdir(), "clanka-sshd-"))
  const keygen = (file: string) => {
    const result = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "clanka-test", "-f", file])
    if (result.status !== 0) throw new Error(`ssh-keygen failed: ${result.stderr}`)
  }
  keygen(join(dir, "host_key"))
  keygen(join(dir, "id"))
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "id.pub")))
  chmodSync(join(dir, "authorized_keys"), 0o600)
  // sshd refuses to start without its privilege separation directory.
  if (process.getuid?.() === 0) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 })

  const remoteCache = join(dir, "remote-cache")
  const remotePath = join(dir, "remote-path")
  mkdirSync(remotePath)
  // os.userInfo() can answer "unknown" in some containers; id(1) asks the passwd database.
  const user = spawnSync("id", ["-un"], { encoding: "utf8" }).stdout.trim()
  const alias = "clanka-test-host"
  let lastError = ""
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort()
    writeFileSync(
      join(dir, "sshd_config"),
      [
        `Port ${port}`,
        "ListenAddress 127.0.0.1",
        `HostKey ${join(dir, "host_key")}`,
        `PidFile ${join(dir, "sshd.pid")}`,
        `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
        "StrictModes no",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        "PermitRootLogin prohibit-password",
        `AllowUsers ${user}`,
        "PrintMotd no",
        "LogLevel ERROR",
        `SetEnv XDG_CACHE_HOME=${remoteCache} PATH=${remotePath}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
        "",
      ].join("\n"),
    )
    writeFileSync(
      join(dir, "ssh_config"),
      [
        `Host ${alias}`,
        "  HostName 127.0.0.1",
        `  Port ${port}`,
        `  User ${user}`,
        `  IdentityFile ${join(dir, "id")}`,
        "  IdentitiesOnly yes",
        "  UserKnownHostsFile /dev/null",
        "  StrictHostKeyChecking no",
        "  BatchMode yes",
        "  LogLevel ERROR",
        `Host ${alias}-down`,
        "  HostName 127.0.0.1",
        `  Port ${await freePort()}`,
        "  UserKnownHostsFile /dev/null",
        "  StrictHostKeyChecking no",
        "  BatchMode yes",
        "",
      ].join("\n"),
    )
    const server = spawn(SSHD, ["-D", "-e", "-f", join(dir, "sshd_config")], { stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    server.stderr!.on("data", (chunk) => (stderr += chunk))
    if (await listening(port, server)) {
      const bin = join(dir, "bin")
      mkdirSync(bin)
      const wrapper = join(bin, "ssh")
      writeFileSync(wrapper, `#!/bin/sh\nexec /usr/bin/ssh -F ${join(dir, "ssh_config")} "$@"\n`)
      chmodSync(wrapper, 0o755)
      return {
        alias,
        downAlias: `${alias}-down`,
        port,
        dir,
        env: { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` },
        ssh: ["/usr/bin/ssh", "-F", join(dir, "ssh_config")],
        remoteCache,
        remotePath,
        stop: async () => {
          server.kill("SIGTERM")
          await new Promise((done) => (server.exitCode !== null ? done(null) : server.once("exit", done)))
          rmSync(dir, { recursive: true, force: true })
        },
      }
    }
    server.kill("SIGKILL")
    lastError = stderr.trim()
  }
  rmSync(dir, { recursive: true, force: true })
  throw new Error(`sshd did not start: ${lastError}`)
}

/** sshd with a project on its far side, and a local directory for clanka to start in. */
export interface SshProject extends Sshd {
  /** The local working directory (its real path), holding local-only.txt: what the far side must not see. */
  local: string
  /** The project directory on the far side (its name has a space). */
  remoteDir: string
  /** `ALIAS:REMOTEDIR`, for `--ssh`. */
  target: string
  /** The remote clanka, for `--remote-bin`; it records its pid so `killRemote` can find it. */
  remoteBin: string
  /** SIGKILLs the remote clanka last started through `remoteBin`: the far side dies. */
  killRemote(): void
  /** Forgets the pid of the remote clanka last started. */
  forgetRemote(): void
}

/** Starts sshd, writes `remoteFiles` into the remote project and makes the local directory. */
export async function startSshProject(localPrefix: string, remoteFiles: Record<string, string>): Promise<SshProject> {
  const sshd = await startSshd()
  const local = realpathSync(mkdtempSync(join(tmpdir(), localPrefix)))
  writeFileSync(join(local, "local-only.txt"), "not this one\n")
  const remoteDir = join(sshd.dir, "remote project")
  for (const [path, content] of Object.entries(remoteFiles)) {
    mkdirSync(dirname(join(remoteDir, path)), { recursive: true })
    writeFileSync(join(remoteDir, path), content)
  }
  const pidFile = join(sshd.dir, "remote.pid")
  return {
    ...sshd,
    local,
    remoteDir,
    target: `${sshd.alias}:${remoteDir}`,
    remoteBin: writeRemoteBin(join(sshd.dir, "clanka"), { pidFile }),
    killRemote: () => process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL"),
    forgetRemote: () => rmSync(pidFile, { force: true }),
    stop: async () => {
      await sshd.stop()
      rmSync(local, { recursive: true, force: true })
    },
  }
}

/**
 * Writes a script that plays the remote `clanka` for --remote-bin: it runs clanka from this
 * checkout and, when `pidFile` is given, records its pid so a test can kill the far side.
 */
export function writeRemoteBin(path: string, options: { pidFile?: string } = {}): string {
  const record = options.pidFile ? `echo $$ > '${options.pidFile}'\n` : ""
  // The far side's search index goes next to this script, not into the user's ~/.cache.
  writeFileSync(path, `#!/bin/sh\n${record}export XDG_CACHE_HOME='${join(dirname(path), "cache")}'\nexec '${BUN}' '${MAIN}' "$@"\n`)
  chmodSync(path, 0o755)
  return path
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer()
    server.once("error", fail)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => done(port))
    })
  })
}

/** Waits until sshd accepts connections; false if it exited first or took too long. */
async function listening(port: number, server: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 5000
  while (Date.now() < deadline) {
    if (server.exitCode !== null) return false
    const ok = await new Promise<boolean>((done) => {
      const socket = connect(port, "127.0.0.1")
      socket.once("connect", () => {
        socket.destroy()
        done(true)
      })
      socket.once("error", () => done(false))
    })
    if (ok) return true
    await new Promise((done) => setTimeout(done, 25))
  }
  return false
}
