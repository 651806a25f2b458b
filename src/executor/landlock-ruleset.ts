/**
 * Landlock (Linux 5.13+): the kernel's unprivileged access control, used where bubblewrap cannot
 * start. A ruleset names the access rights it handles (denied unless a rule grants them) and
 * grants them beneath file hierarchies; landlock_restrict_self then binds the calling thread, and
 * whatever it executes and starts, for good. Rights and scopes follow the kernel's ABI version.
 */
import { closeSync, openSync } from "node:fs"
import { address, syscall } from "./landlock-ffi.ts"

const SYS_CREATE_RULESET = 444
const SYS_ADD_RULE = 445
const SYS_RESTRICT_SELF = 446
const CREATE_RULESET_VERSION = 1
const RULE_PATH_BENEATH = 1
/** open(2) flags, the same on x86-64 and arm64 (node:fs does not export O_PATH). */
const O_PATH = 0o10000000
const O_CLOEXEC = 0o2000000

/** Filesystem access rights (uapi linux/landlock.h) and the ABI that brought each. */
export const FS = {
  EXECUTE: 1 << 0,
  WRITE_FILE: 1 << 1,
  READ_FILE: 1 << 2,
  READ_DIR: 1 << 3,
  REMOVE_DIR: 1 << 4,
  REMOVE_FILE: 1 << 5,
  MAKE_CHAR: 1 << 6,
  MAKE_DIR: 1 << 7,
  MAKE_REG: 1 << 8,
  MAKE_SOCK: 1 << 9,
  MAKE_FIFO: 1 << 10,
  MAKE_BLOCK: 1 << 11,
  MAKE_SYM: 1 << 12,
  /** ABI 2: link or rename into another directory. */
  REFER: 1 << 13,
  /** ABI 3: truncate(2), ftruncate(2), O_TRUNC. */
  TRUNCATE: 1 << 14,
} as const
const NET_BIND_TCP = 1 << 0
const NET_CONNECT_TCP = 1 << 1
const SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
const SCOPE_SIGNAL = 1 << 1

/** Rights that apply to a file (not only to a directory's entries). */
const FILE_RIGHTS = FS.EXECUTE | FS.WRITE_FILE | FS.READ_FILE | FS.TRUNCATE

const READ = FS.EXECUTE | FS.READ_FILE | FS.READ_DIR
/** Everything but making devices (no capability could anyway) in a writable hierarchy. */
const WRITE = READ | FS.WRITE_FILE | FS.REMOVE_DIR | FS.REMOVE_FILE | FS.MAKE_DIR | FS.MAKE_REG | FS.MAKE_SOCK | FS.MAKE_FIFO | FS.MAKE_SYM | FS.REFER | FS.TRUNCATE

/** What a rule grants beneath its path: read (and execute), list (names only), write, or a device's read and write. */
export type Grant = "read" | "list" | "write" | "device"
const GRANTS: Record<Grant, number> = { read: READ, list: FS.READ_DIR, write: WRITE, device: FS.READ_FILE | FS.WRITE_FILE | FS.TRUNCATE }

let abi: number | undefined
let ffiFailure: string | undefined
/** The kernel's Landlock ABI version: 0 where Landlock is missing or disabled (or libc cannot be loaded). */
export function landlockAbi(): number {
  if (abi !== undefined) return abi
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) return (abi = 0)
  try {
    abi = Math.max(0, syscall(SYS_CREATE_RULESET, 0, 0, CREATE_RULESET_VERSION))
  } catch (error) {
    ffiFailure = (error as Error).message
    abi = 0
  }
  return abi
}

/** Why Landlock cannot be had here, for a one-line error; undefined when it can. */
export function landlockUnavailable(): string | undefined {
  if (process.platform !== "linux") return "it is Linux only"
  if (process.arch !== "x64" && process.arch !== "arm64") return `clanka does not use it on ${process.arch}`
  if (landlockAbi() === 0) return ffiFailure ?? "the kernel offers none: it needs Linux 5.13 or later with landlock among its LSMs"
  return undefined
}

/** The rights this ABI knows, of `mask`. */
function known(mask: number, version: number): number {
  let rights = mask
  if (version < 2) rights &= ~FS.REFER
  if (version < 3) rights &= ~FS.TRUNCATE
  return rights
}

export interface RulesetSpec {
  rules: readonly (readonly [path: string, grant: Grant])[]
  /** TCP bind and connect are handled (denied: no port is granted). */
  denyTcp: boolean
  /** Connections to abstract unix sockets made outside the sandbox are refused (ABI 6). */
  scopeAbstractSockets: boolean
}

/**
 * Builds the ruleset and restricts the calling thread with it (no_new_privs must be set). A path
 * that does not exist is skipped; any other failure throws, before the thread is restricted.
 * Returns the ABI used.
 */
export function restrictSelf(spec: RulesetSpec): number {
  const version = landlockAbi()
  if (version === 0) throw new Error(landlockUnavailable())
  const handledFs = known(WRITE | FS.MAKE_CHAR | FS.MAKE_BLOCK, version)
  const handledNet = spec.denyTcp && version >= 4 ? NET_BIND_TCP | NET_CONNECT_TCP : 0
  const scoped = version >= 6 ? SCOPE_SIGNAL | (spec.scopeAbstractSockets ? SCOPE_ABSTRACT_UNIX_SOCKET : 0) : 0
  const attr = new BigUint64Array([BigInt(handledFs), BigInt(handledNet), BigInt(scoped)])
  const size = version >= 6 ? 24 : version >= 4 ? 16 : 8
  const ruleset = syscall(SYS_CREATE_RULESET, address(attr), size, 0)
  if (ruleset < 0) throw new Error(`landlock_create_ruleset failed (errno ${-ruleset})`)
  try {
    for (const [path, grant] of spec.rules) addRule(ruleset, path, known(GRANTS[grant], version) & handledFs)
    const result = syscall(SYS_RESTRICT_SELF, ruleset, 0)
    if (result < 0) throw new Error(`landlock_restrict_self failed (errno ${-result})`)
  } finally {
    closeSync(ruleset)
  }
  return version
}

function addRule(ruleset: number, path: string, rights: number): void {
  let fd: number
  try {
    fd = openSync(path, O_PATH | O_CLOEXEC)
  } catch {
    return // gone meanwhile, or never there: nothing to grant
  }
  try {
    // struct landlock_path_beneath_attr { __u64 allowed_access; __s32 parent_fd; } (packed)
    const attr = Buffer.alloc(12)
    let allowed = rights
    const result = () => {
      attr.writeBigUInt64LE(BigInt(allowed), 0)
      attr.writeInt32LE(fd, 8)
      return syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, address(attr), 0)
    }
    let status = result()
    // A file, not a directory: only the rights that apply to a file.
    if (status === -22 /* EINVAL */) {
      allowed = rights & FILE_RIGHTS
      status = allowed === 0 ? 0 : result()
    }
    if (status < 0) throw new Error(`landlock_add_rule for ${path} failed (errno ${-status})`)
  } finally {
    closeSync(fd)
  }
}
