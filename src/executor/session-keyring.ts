/**
 * The session keyring under bubblewrap. Every process inherits the kernel keyring of its session
 * (a login's: Kerberos tickets kept as `KEYRING:`, keys added with `keyctl add … @s`), and
 * bubblewrap's namespaces do not cut it: a script could read those keys. So when the agent has a
 * session keyring of its own, bwrap is started through `clanka __fresh-keyring -- bwrap …`, which
 * joins a new, empty session keyring and then executes bwrap: nothing in the sandbox (bwrap's own
 * first process included, which a script may ptrace) holds the old one. Landlock's seccomp filter
 * refuses the keyring calls instead. The user's keyring (`@u`) is per user namespace already.
 */
// bun:ffi and the C library load only where a sandbox starts (a required module is loaded once).
const ffi = (): typeof import("./landlock-ffi.ts") => require("./landlock-ffi.ts")
const syscall = (nr: number, ...args: number[]) => ffi().syscall(nr, ...args)

export const FRESH_KEYRING = "__fresh-keyring"

const SYS = process.arch === "arm64" ? { keyctl: 219, fcntl: 25 } : { keyctl: 250, fcntl: 72 }
const KEYCTL_GET_KEYRING_ID = 0
const KEYCTL_JOIN_SESSION_KEYRING = 1
const KEY_SPEC_SESSION_KEYRING = -3
const KEY_SPEC_USER_SESSION_KEYRING = -5
const F_SETFD = 2
const ENOSYS = 38

let own: boolean | undefined

/**
 * Whether this process has a session keyring of its own (a login's, a systemd service's): without
 * one the kernel falls back to the user's session keyring, which a new user namespace does not
 * share. Asked once; a kernel without keys has nothing to hide.
 */
export function hasSessionKeyring(): boolean {
  if (process.platform !== "linux") return false
  try {
    own ??= ownSessionKeyring()
  } catch {
    // The C library cannot be loaded: the wrapper will say why rather than a key leaking.
    own = true
  }
  return own
}

function ownSessionKeyring(): boolean {
  if (onlyStandardKeyrings()) return false
  const session = syscall(SYS.keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)
  if (session === -ENOSYS) return false
  const userSession = syscall(SYS.keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_SESSION_KEYRING, 0)
  return session < 0 || session !== userSession
}

/**
 * Whether the keyrings this process can see (/proc/keys) are only the kernel's and the user's own
 * (`_uid.N`, `_uid_ses.N`): then it has no session keyring of its own, known without loading the
 * C library (~0.7 ms of the agent's way to its sandbox). Any other keyring, or no /proc/keys,
 * leaves the answer to keyctl.
 */
function onlyStandardKeyrings(): boolean {
  let text: string
  try {
    text = require("node:fs").readFileSync("/proc/keys", "utf8") as string
  } catch {
    return false
  }
  return text.split("\n").every((line) => {
    const fields = line.trim().split(/\s+/)
    if (fields[7] !== "keyring") return true
    const name = fields.slice(8).join(" ").replace(/:.*$/, "")
    return /^(\.[\w.-]+|_uid\.\d+|_uid_ses\.\d+)$/.test(name)
  })
}

/** `argv` (bwrap's command line) started with a session keyring of its own when this process has one to hide. */
export function withFreshKeyring(argv: string[], self: string[]): string[] {
  return hasSessionKeyring() ? [...self, FRESH_KEYRING, "--", ...argv] : argv
}

/** The index of bwrap's program in a command line `withFreshKeyring` made. */
export function bwrapIndex(argv: readonly string[]): number {
  const at = argv.indexOf(FRESH_KEYRING)
  return at >= 0 && argv[at + 1] === "--" ? at + 2 : 0
}

/** Runs the step; returns only on failure, with the exit code (the reason is on stderr). */
export function freshKeyringExec(args: readonly string[]): number {
  const command = args.slice(1)
  if (args[0] !== "--" || command.length === 0) return fail("usage: clanka __fresh-keyring -- COMMAND [ARG...]", 2)
  const program = command[0]!.includes("/") ? command[0]! : Bun.which(command[0]!)
  if (!program) return fail(`${command[0]}: command not found`, 127)
  const joined = syscall(SYS.keyctl, KEYCTL_JOIN_SESSION_KEYRING, 0)
  if (joined < 0 && joined !== -ENOSYS) return fail(`cannot start a session keyring of its own (errno ${-joined})`, 1)
  // Bun marks the descriptors it inherits close-on-exec; those bwrap is told to use (--info-fd 3,
  // --block-fd 4) must reach it.
  command.forEach((arg, i) => {
    const fd = Number(command[i + 1])
    if (/^--[a-z-]*fd$/.test(arg) && Number.isInteger(fd) && fd > 2) syscall(SYS.fcntl, fd, F_SETFD, 0)
  })
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value
  const result = ffi().execve(program, command, env)
  return fail(`cannot run ${program} (errno ${-result})`, 126)
}

function fail(message: string, code: number): number {
  process.stderr.write(`clanka: the sandbox cannot start: ${message}\n`)
  return code
}
