// The kernel's session keyring, for tests: `bun session-keyring.ts hold SECRET -- CMD…` joins a
// new session keyring, puts a "user" key holding SECRET in it and executes CMD (which inherits
// it, as a login session's programs do); `bun session-keyring.ts read` prints every key of its
// session keyring it can read, `description=payload` a line, or why it cannot.
import { cString, execve, syscall } from "../../src/executor/landlock-ffi.ts"

const NR = process.arch === "arm64" ? { addKey: 217, keyctl: 219 } : { addKey: 248, keyctl: 250 }
const KEY_SPEC_SESSION_KEYRING = -3
const KEYCTL_GET_KEYRING_ID = 0
const KEYCTL_JOIN_SESSION_KEYRING = 1
const KEYCTL_DESCRIBE = 6
const KEYCTL_READ = 11

const [mode, ...rest] = process.argv.slice(2)
if (mode === "hold") {
  const [secret, dash, ...command] = rest
  if (!secret || dash !== "--" || command.length === 0) throw new Error("usage: hold SECRET -- CMD…")
  must(syscall(NR.keyctl, KEYCTL_JOIN_SESSION_KEYRING, 0), "join a session keyring")
  const payload = cString(secret)
  must(syscall(NR.addKey, ptr(cString("user")), ptr(cString("clanka-test-key")), ptr(payload), secret.length, KEY_SPEC_SESSION_KEYRING), "add a key")
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value
  must(execve(Bun.which(command[0]!) ?? command[0]!, command, env), `execute ${command[0]}`)
} else if (mode === "read") {
  const ring = syscall(NR.keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)
  if (ring < 0) console.log(`no session keyring: errno ${-ring}`)
  else {
    const ids = new Int32Array(256)
    const size = syscall(NR.keyctl, KEYCTL_READ, ring, ptr(ids), ids.byteLength)
    if (size < 0) console.log(`keyring unreadable: errno ${-size}`)
    for (const id of ids.subarray(0, Math.max(0, size) / 4)) {
      const description = Buffer.alloc(512)
      const payload = Buffer.alloc(512)
      const d = syscall(NR.keyctl, KEYCTL_DESCRIBE, id, ptr(description), description.length)
      const p = syscall(NR.keyctl, KEYCTL_READ, id, ptr(payload), payload.length)
      console.log(`${d < 0 ? `key ${id}` : description.toString("utf8", 0, d - 1)}=${p < 0 ? `unreadable (errno ${-p})` : payload.toString("utf8", 0, p)}`)
    }
  }
} else throw new Error("usage: session-keyring.ts hold SECRET -- CMD… | read")

function ptr(buffer: Uint8Array | Int32Array): number {
  return Number(require("bun:ffi").ptr(buffer))
}

function must(result: number, what: string): void {
  if (result < 0) throw new Error(`cannot ${what}: errno ${-result}`)
}
