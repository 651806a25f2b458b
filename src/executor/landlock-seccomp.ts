/**
 * The seccomp filter beside Landlock: what Landlock does not cover. No ptrace or reading another
 * process's memory, no namespaces (a user namespace would hand a script every capability inside
 * it), no kernel keyrings, BPF, perf, io_uring (a way around the socket rule), module loading,
 * mounts, terminal input injection, another process's resource limits or the host's System V
 * IPC and message queues; and with the network off, no socket but AF_UNIX stream pairs and
 * netlink's routing family (interface lists). A denied call fails with an errno; a call of
 * another architecture (i386, x32) kills the process.
 */
import { address, prctl } from "./landlock-ffi.ts"

type Arch = "x64" | "arm64"

/** Syscall numbers (x86-64, and arm64's generic table). */
const NR: Record<string, Record<Arch, number>> = {
  socket: { x64: 41, arm64: 198 },
  socketpair: { x64: 53, arm64: 199 },
  clone: { x64: 56, arm64: 220 },
  unshare: { x64: 272, arm64: 97 },
  ioctl: { x64: 16, arm64: 29 },
  clone3: { x64: 435, arm64: 435 },
  prlimit64: { x64: 302, arm64: 261 },
}

/** Denied outright with EPERM. */
const DENIED: Record<string, Partial<Record<Arch, number>>> = {
  ptrace: { x64: 101, arm64: 117 },
  process_vm_readv: { x64: 310, arm64: 270 },
  process_vm_writev: { x64: 311, arm64: 271 },
  setns: { x64: 308, arm64: 268 },
  keyctl: { x64: 250, arm64: 219 },
  add_key: { x64: 248, arm64: 217 },
  request_key: { x64: 249, arm64: 218 },
  bpf: { x64: 321, arm64: 280 },
  perf_event_open: { x64: 298, arm64: 241 },
  userfaultfd: { x64: 323, arm64: 282 },
  io_uring_setup: { x64: 425, arm64: 425 },
  io_uring_enter: { x64: 426, arm64: 426 },
  io_uring_register: { x64: 427, arm64: 427 },
  kexec_load: { x64: 246, arm64: 104 },
  kexec_file_load: { x64: 320, arm64: 294 },
  init_module: { x64: 175, arm64: 105 },
  finit_module: { x64: 313, arm64: 273 },
  delete_module: { x64: 176, arm64: 106 },
  mount: { x64: 165, arm64: 40 },
  umount2: { x64: 166, arm64: 39 },
  pivot_root: { x64: 155, arm64: 41 },
  chroot: { x64: 161, arm64: 51 },
  mount_setattr: { x64: 442, arm64: 442 },
  move_mount: { x64: 429, arm64: 429 },
  open_tree: { x64: 428, arm64: 428 },
  fsopen: { x64: 430, arm64: 430 },
  fsconfig: { x64: 431, arm64: 431 },
  fsmount: { x64: 432, arm64: 432 },
  fspick: { x64: 433, arm64: 433 },
  swapon: { x64: 167, arm64: 224 },
  swapoff: { x64: 168, arm64: 225 },
  reboot: { x64: 169, arm64: 142 },
  open_by_handle_at: { x64: 304, arm64: 265 },
  acct: { x64: 163, arm64: 89 },
  quotactl: { x64: 179, arm64: 60 },
  quotactl_fd: { x64: 443, arm64: 443 },
  vhangup: { x64: 153, arm64: 58 },
  syslog: { x64: 103, arm64: 116 },
  lookup_dcookie: { x64: 212, arm64: 18 },
  iopl: { x64: 172 },
  ioperm: { x64: 173 },
  // The host's System V IPC and POSIX message queues (bubblewrap gives an IPC namespace of its
  // own): a script would read, write or remove another process's shared memory (an X server's
  // images, a database's) by key or id, which Landlock does not guard.
  shmget: { x64: 29, arm64: 194 },
  shmat: { x64: 30, arm64: 196 },
  shmctl: { x64: 31, arm64: 195 },
  semget: { x64: 64, arm64: 190 },
  semop: { x64: 65, arm64: 193 },
  semctl: { x64: 66, arm64: 191 },
  semtimedop: { x64: 220, arm64: 192 },
  msgget: { x64: 68, arm64: 186 },
  msgsnd: { x64: 69, arm64: 189 },
  msgrcv: { x64: 70, arm64: 188 },
  msgctl: { x64: 71, arm64: 187 },
  mq_open: { x64: 240, arm64: 180 },
  mq_unlink: { x64: 241, arm64: 181 },
  mq_timedsend: { x64: 242, arm64: 182 },
  mq_timedreceive: { x64: 243, arm64: 183 },
  mq_notify: { x64: 244, arm64: 184 },
  mq_getsetattr: { x64: 245, arm64: 185 },
}

const AUDIT_ARCH: Record<Arch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 }
const X32_SYSCALL_BIT = 0x40000000

const EPERM = 1
const EACCES = 13
const ENOSYS = 38
const ENETUNREACH = 101

const AF_UNIX = 1
const AF_INET = 2
const AF_INET6 = 10
const AF_NETLINK = 16
const NETLINK_ROUTE = 0
const SOCK_STREAM = 1
const SOCK_TYPE_MASK = 0xf
const TIOCSTI = 0x5412
const TIOCLINUX = 0x541c
const CLONE_NEWNS = 0x00020000
const CLONE_NEWCGROUP = 0x02000000
const CLONE_NEWUTS = 0x04000000
const CLONE_NEWIPC = 0x08000000
const CLONE_NEWUSER = 0x10000000
const CLONE_NEWPID = 0x20000000
const CLONE_NEWNET = 0x40000000
/** Only unshare(2) takes it: in clone(2) the low byte is the exit signal. */
const CLONE_NEWTIME = 0x00000080
const CLONE_NAMESPACES = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET

// Classic BPF, as seccomp runs it over struct seccomp_data { int nr; u32 arch; u64 ip; u64 args[6]; }.
const LD_W_ABS = 0x20
const JEQ_K = 0x15
const JSET_K = 0x45
const JGE_K = 0x35
const AND_K = 0x54
const RET_K = 0x06
const RET_KILL_PROCESS = 0x80000000
const RET_ALLOW = 0x7fff0000
const retErrno = (errno: number) => 0x00050000 | errno
const NR_OFFSET = 0
const ARCH_OFFSET = 4
/** The low 32 bits of argument `i` (little-endian on both architectures). */
const argLow = (i: number) => 16 + 8 * i
const argHigh = (i: number) => argLow(i) + 4

/** One instruction: code, jump-if-true, jump-if-false, constant. */
export type Instruction = readonly [code: number, jt: number, jf: number, k: number]

const load = (offset: number): Instruction => [LD_W_ABS, 0, 0, offset]
const ret = (value: number): Instruction => [RET_K, 0, 0, value]

/** `if nr == syscall then <block> else skip it`; the block must end in a return. */
function when(nr: number, block: Instruction[]): Instruction[] {
  return [[JEQ_K, 0, block.length, nr], ...block]
}

/** The filter for this architecture; `network`: whether scripts may open sockets of any family. */
export function seccompFilter(arch: Arch, network: boolean): Instruction[] {
  const nr = (name: string) => NR[name]![arch]
  const program: Instruction[] = [load(ARCH_OFFSET), [JEQ_K, 1, 0, AUDIT_ARCH[arch]], ret(RET_KILL_PROCESS), load(NR_OFFSET)]
  if (arch === "x64") program.push([JGE_K, 0, 1, X32_SYSCALL_BIT], ret(RET_KILL_PROCESS))
  for (const numbers of Object.values(DENIED)) {
    const number = numbers[arch]
    if (number !== undefined) program.push(...when(number, [ret(retErrno(EPERM))]))
  }
  // clone3 passes its flags in memory, out of the filter's sight: C libraries fall back to clone.
  program.push(...when(nr("clone3"), [ret(retErrno(ENOSYS))]))
  program.push(...when(nr("clone"), [load(argLow(0)), [JSET_K, 0, 1, CLONE_NAMESPACES], ret(retErrno(EPERM)), ret(RET_ALLOW)]))
  program.push(...when(nr("unshare"), [load(argLow(0)), [JSET_K, 0, 1, CLONE_NAMESPACES | CLONE_NEWTIME], ret(retErrno(EPERM)), ret(RET_ALLOW)]))
  // Landlock does not guard resource limits: a script would set those of any process of its user
  // outside (the agent's open files, as root init's). Its own (pid 0, setrlimit) and reading
  // another's stay.
  program.push(
    ...when(nr("prlimit64"), [
      load(argLow(0)),
      [JEQ_K, 5, 0, 0],
      load(argLow(2)),
      [JEQ_K, 0, 2, 0],
      load(argHigh(2)),
      [JEQ_K, 1, 0, 0],
      ret(retErrno(EPERM)),
      ret(RET_ALLOW),
    ]),
  )
  // Typing into the terminal's input queue would run commands outside (TIOCSTI), as would the console's (TIOCLINUX).
  program.push(...when(nr("ioctl"), [load(argLow(1)), [JEQ_K, 1, 0, TIOCSTI], [JEQ_K, 0, 1, TIOCLINUX], ret(retErrno(EPERM)), ret(RET_ALLOW)]))
  if (!network) {
    // A pathname unix socket is a file Landlock does not guard on connect: only stream pairs,
    // which reach nothing but each other. Netlink routing lists interfaces (os.networkInterfaces).
    // IP says "Network is unreachable", as a machine without a network would.
    program.push(
      ...when(nr("socket"), [
        load(argLow(0)),
        [JEQ_K, 3, 0, AF_INET],
        [JEQ_K, 2, 0, AF_INET6],
        [JEQ_K, 2, 0, AF_NETLINK],
        ret(retErrno(EACCES)),
        ret(retErrno(ENETUNREACH)),
        load(argLow(2)),
        [JEQ_K, 0, 1, NETLINK_ROUTE],
        ret(RET_ALLOW),
        ret(retErrno(EACCES)),
      ]),
    )
    program.push(
      ...when(nr("socketpair"), [
        load(argLow(0)),
        [JEQ_K, 0, 4, AF_UNIX],
        load(argLow(1)),
        [AND_K, 0, 0, SOCK_TYPE_MASK],
        [JEQ_K, 0, 1, SOCK_STREAM],
        ret(RET_ALLOW),
        ret(retErrno(EACCES)),
      ]),
    )
  }
  program.push(ret(RET_ALLOW))
  return program
}

/** Installs the filter on the calling thread (no_new_privs must be set); returns minus errno on failure. */
export function installSeccomp(network: boolean): number {
  return installFilter(seccompFilter(process.arch === "arm64" ? "arm64" : "x64", network))
}

/** Installs a classic BPF program as this thread's seccomp filter; returns minus errno on failure. */
export function installFilter(program: readonly (readonly [number, number, number, number])[]): number {
  // struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }
  const filter = Buffer.alloc(program.length * 8)
  program.forEach(([code, jt, jf, k], i) => {
    filter.writeUInt16LE(code, i * 8)
    filter.writeUInt8(jt, i * 8 + 2)
    filter.writeUInt8(jf, i * 8 + 3)
    filter.writeUInt32LE(k >>> 0, i * 8 + 4)
  })
  // struct sock_fprog { u16 len; struct sock_filter *filter; }
  const fprog = Buffer.alloc(16)
  fprog.writeUInt16LE(program.length, 0)
  fprog.writeBigUInt64LE(address(filter), 8)
  const PR_SET_SECCOMP = 22
  const SECCOMP_MODE_FILTER = 2
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, Number(address(fprog)))
}
