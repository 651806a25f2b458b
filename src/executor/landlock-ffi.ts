/**
 * The few libc calls the Landlock backend makes from Bun (bun:ffi): raw syscalls (Landlock has no
 * libc wrappers), prctl, capset, setsid, setrlimit and execve. Linux only; loaded on first use.
 */
import { dlopen, FFIType, ptr, read } from "bun:ffi"

type Libc = ReturnType<typeof open>

/** glibc, else musl (Alpine). */
const LIBRARIES = ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`, "libc.so"]

function open() {
  let failure: unknown
  for (const name of LIBRARIES) {
    try {
      return bind(name)
    } catch (error) {
      failure = error
    }
  }
  throw new Error(`cannot load the C library (${LIBRARIES.join(", ")}): ${(failure as Error).message}`)
}

function bind(name: string) {
  const word = FFIType.i64
  return dlopen(name, {
    syscall: { args: [word, word, word, word, word, word, word], returns: word },
    prctl: { args: [FFIType.i32, word, word, word, word], returns: FFIType.i32 },
    capset: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    setsid: { args: [], returns: FFIType.i32 },
    setrlimit: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  }).symbols
}

let libc: Libc | undefined
function lib(): Libc {
  libc ??= open()
  return libc
}

/** The calling thread's errno (read right after the failing call, on the same thread). */
export function errno(): number {
  const at = lib().__errno_location()
  return at ? read.i32(at, 0) : 0
}

/** A syscall by number; returns the result, or minus errno. */
export function syscall(nr: number, ...args: (number | bigint)[]): number {
  const padded = [...args, 0, 0, 0, 0, 0, 0].slice(0, 6)
  const result = Number(lib().syscall(nr, ...(padded as [number, number, number, number, number, number])))
  return result === -1 ? -errno() : result
}

export function prctl(option: number, a = 0, b = 0, c = 0, d = 0): number {
  const result = lib().prctl(option, a, b, c, d)
  return result === -1 ? -errno() : result
}

/** Empties this thread's effective, permitted and inheritable capability sets. */
export function clearCapabilities(): number {
  // _LINUX_CAPABILITY_VERSION_3 (two 32-bit words per set), pid 0: this thread.
  const header = new Uint32Array([0x20080522, 0])
  const data = new Uint32Array(6)
  return lib().capset(header, data) === -1 ? -errno() : 0
}

export function setsid(): number {
  return lib().setsid() === -1 ? -errno() : 0
}

/** setrlimit(resource, {cur, max}). */
export function setrlimit(resource: number, cur: number, max: number): number {
  return lib().setrlimit(resource, new BigUint64Array([BigInt(cur), BigInt(max)])) === -1 ? -errno() : 0
}

/** The address of a buffer, for structures that hold pointers. */
export function address(buffer: Uint8Array | BigUint64Array | Uint32Array): bigint {
  return BigInt(ptr(buffer))
}

/** A NUL-terminated C string. */
export function cString(text: string): Buffer {
  return Buffer.from(`${text}\0`)
}

/** Replaces this process with `path` (argv, envp); returns minus errno only when that fails. */
export function execve(path: string, argv: readonly string[], env: Record<string, string>): number {
  const strings = (list: string[]) => {
    const buffers = list.map(cString)
    const table = new BigUint64Array(buffers.length + 1)
    buffers.forEach((buffer, i) => (table[i] = address(buffer)))
    return { buffers, table }
  }
  const args = strings([...argv])
  const envp = strings(Object.entries(env).map(([name, value]) => `${name}=${value}`))
  const result = lib().execve(cString(path), args.table, envp.table)
  // Still here: it failed. The buffers stayed alive until now through `args` and `envp`.
  void args.buffers.length
  void envp.buffers.length
  return result === -1 ? -errno() : result
}
