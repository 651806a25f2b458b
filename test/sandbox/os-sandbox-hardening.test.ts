// The OS sandbox's hardening, tried as a hostile script would, through the real CLI against each
// Linux backend (bubblewrap, and Landlock with seccomp): root keeps no capabilities, the host's
// unix sockets are out of reach with the network off, the processes (and bubblewrap's /tmp) are
// bounded, and the usual credential stores cannot be read.
import { afterAll, describe, expect, test } from "bun:test"
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { dirname, join } from "node:path"
import { BUN, clanka, MAIN, type CliResult } from "../support/cli.ts"
import { BACKENDS, BWRAP } from "../support/sandbox-backends.ts"
import { RawSession } from "../protocol/raw-session.ts"

/** A normal user can be had (setpriv from root, as CI runs): the same attacks run as that user. */
const canDropRoot = process.getuid?.() === 0 && Bun.which("setpriv") !== null
// A uid of this test run's own, not nobody's: under Landlock the process bound counts every task
// of the user on the machine, and another test run's fork bomb may be going off meanwhile.
const USER = String(1_000_000_000 + process.pid)

// Outside /tmp, whose sandbox copy is private: these paths are really outside the sandbox.
const root = mkdtempSync("/var/tmp/clanka-hardening-")
chmodSync(root, 0o755)
const workspace = join(root, "app")
mkdirSync(workspace)
writeFileSync(join(workspace, "README.md"), "hello\n")
// The normal user's workspace and home.
const userWorkspace = join(root, "user-app")
const userHome = join(root, "user-home")
for (const dir of [userWorkspace, userHome]) {
  mkdirSync(dir)
  if (canDropRoot) chownSync(dir, Number(USER), Number(USER))
}
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** What clanka printed, and its pid: the cgroups it makes are named after it. */
type Run = CliResult & { pid: number }

/** clanka from source, after `prefix` (setpriv), as the test's `clanka` runs it. */
async function spawnClanka(prefix: string[], args: string[], cwd: string, env: Record<string, string | undefined>): Promise<Run> {
  const child = Bun.spawn([...prefix, BUN, MAIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, stdout, stderr, pid: child.pid }
}

/** clanka as a user of its own (USER), with a home of its own (setpriv executes it: the pid stays). */
const clankaAsUser = (args: string[], env: Record<string, string> = {}) =>
  spawnClanka(["setpriv", "--reuid", USER, "--regid", USER, "--clear-groups", "--"], args, userWorkspace, { HOME: userHome, ...env })

const users = [
  { who: "root", run: (args: string[], env: Record<string, string>) => spawnClanka([], args, workspace, env), dir: workspace },
  { who: "a normal user", run: clankaAsUser, dir: userWorkspace, skip: !canDropRoot },
]

/** `bash` of each command; one line each: `NAME: refused` or `NAME: WORKED`. */
function attempts(commands: Record<string, string>): string {
  const lines = Object.entries(commands).map(([name, command]) => `if (${command}) >/dev/null 2>&1; then echo "${name}: WORKED"; else echo "${name}: refused"; fi`)
  return `console.log(await bash({ command: ${JSON.stringify(lines.join("\n"))} }))\nconsole.log(await bash({ command: "echo executor alive" }))`
}

for (const backend of BACKENDS) describe.skipIf(!backend.available)(`no capabilities in the sandbox (${backend.name})`, () => {
  for (const user of users) {
    for (const mode of ["workspace-write", "read-only"]) {
      test.skipIf(user.skip ?? false)(`as ${user.who}, --sandbox ${mode}: remount, mount, mknod and unshare fail; nothing is written outside`, async () => {
        const escaped = join(root, `escaped-${backend.name}-${mode}-${user.who.length}`)
        const script = attempts({
          remount: `mount -o remount,rw,bind / && echo x > ${escaped}`,
          "write after remount": `echo x > ${escaped}`,
          mknod: "mknod ./null c 1 3 || mknod /tmp/null c 1 3",
          "mount tmpfs": "mount -t tmpfs none /tmp",
          "unshare -m": "unshare -m true",
          "unshare -U": "unshare -U true",
          "unshare -Ur (root in a new user namespace)": `unshare -Ur sh -c 'mount -o remount,rw,bind / && echo x > ${escaped}'`,
        })
        const result = await user.run(["exec", "-C", user.dir, "--sandbox", mode, "-e", script], backend.env)
        expect(result.stderr).toBe("")
        expect(result.stdout).toBe(
          [
            "remount: refused",
            "write after remount: refused",
            "mknod: refused",
            "mount tmpfs: refused",
            "unshare -m: refused",
            "unshare -U: refused",
            "unshare -Ur (root in a new user namespace): refused",
            "",
            "executor alive",
            "",
            "",
          ].join("\n"),
        )
        expect(existsSync(escaped)).toBe(false)
      })
    }
    test.skipIf(user.skip ?? false)(`as ${user.who}: the kernel's settings (/proc/sys) cannot be changed`, async () => {
      // Root's uid is the host's root (kuid 0) inside bubblewrap's user namespace too, and the
      // kernel grants sysctl writes by that uid alone: kernel.core_pattern = "|/workspace/x" would
      // have the kernel run x as root on the host at the next crash. Each write puts back the
      // value read, so nothing changes even where it works.
      const script = attempts({
        "kernel.core_pattern": "cat /proc/sys/kernel/core_pattern > /tmp/v && cat /tmp/v > /proc/sys/kernel/core_pattern",
        "kernel.modprobe": "cat /proc/sys/kernel/modprobe > /tmp/v && cat /tmp/v > /proc/sys/kernel/modprobe",
        "vm.swappiness": "cat /proc/sys/vm/swappiness > /tmp/v && cat /tmp/v > /proc/sys/vm/swappiness",
      })
      const result = await user.run(["exec", "-C", user.dir, "-e", script], backend.env)
      expect(result.stderr).toBe("")
      expect(result.stdout).toBe("kernel.core_pattern: refused\nkernel.modprobe: refused\nvm.swappiness: refused\n\nexecutor alive\n\n")
    })
  }
})

for (const backend of BACKENDS) describe.skipIf(!backend.available)(`network off: no host unix sockets (${backend.name})`, () => {
  const env = backend.env
  // A host service on a filesystem socket outside /tmp, as docker.sock or an ssh agent are.
  const socket = join(root, `run-${backend.name}`, "docker.sock")
  mkdirSync(dirname(socket))
  const client = join(workspace, `client-${backend.name}.js`)
  writeFileSync(
    client,
    `const s = require("node:net").connect(process.argv[2])
s.on("data", (data) => { console.log("reached:", String(data).trim()); process.exit(0) })
s.on("error", (error) => { console.log("connect failed:", error.code); process.exit(0) })`,
  )
  const own = join(workspace, `own-${backend.name}.js`)
  writeFileSync(
    own,
    `const net = require("node:net")
const path = process.env.TMPDIR + "/own.sock"
const server = net.createServer((c) => c.end("own socket works\\n")).listen(path, () => {
  net.connect(path).on("data", (data) => { console.log(String(data).trim()); server.close() })
})`,
  )
  const socketpair = `perl -MSocket -e 'socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, PF_UNSPEC) or die "$!"; syswrite $a, "ok"; sysread $b, my $x, 2; print "socketpair $x\\n"'`
  const script = `console.log(await bash({ command: ${JSON.stringify(`${BUN} ${client} ${socket}`)} }))`

  async function withListener<T>(body: () => Promise<T>): Promise<T> {
    const listener = createServer((connection) => connection.end("host service\n"))
    await new Promise<void>((done) => listener.listen(socket, done))
    try {
      return await body()
    } finally {
      listener.close()
      rmSync(socket, { force: true })
    }
  }

  for (const mode of ["workspace-write", "read-only"]) {
    test(`--sandbox ${mode}: a script cannot connect to a host socket outside /tmp`, async () => {
      const result = await withListener(() => clanka(["exec", "-C", workspace, "--sandbox", mode, "-e", script], { env }))
      // bubblewrap covers the socket with /dev/null; under Landlock no unix socket can be made.
      expect(result).toEqual({ code: 0, stdout: `connect failed: ${backend === BWRAP ? "ECONNREFUSED" : "EACCES"}\n\n`, stderr: "" })
    })
  }

  test("a host socket in the abstract namespace (X11, D-Bus use them) is out of reach; with --network it is reachable", async () => {
    const name = `\0clanka-abstract-${backend.name}-${process.pid}`
    const listener = createServer((connection) => connection.end("host service\n"))
    await new Promise<void>((done) => listener.listen(name, done))
    try {
      const probe = `const s = require("node:net").connect(${JSON.stringify(name)})
s.on("data", (data) => { console.log("reached:", String(data).trim()); process.exit(0) })
s.on("error", (error) => { console.log("connect failed:", error.code); process.exit(0) })`
      writeFileSync(join(workspace, `abstract-${backend.name}.js`), probe)
      const run = (extra: string[]) => clanka(["exec", "-C", workspace, ...extra, "-e", `console.log(await bash({ command: ${JSON.stringify(`${BUN} abstract-${backend.name}.js`)} }))`], { env })
      // Its own network namespace (bubblewrap), Landlock's scoping and seccomp: refused either way.
      expect((await run([])).stdout).toMatch(/^connect failed: (ECONNREFUSED|EACCES|EPERM)\n\n$/)
      expect(await run(["--network"])).toEqual({ code: 0, stdout: "reached: host service\n\n", stderr: "" })
    } finally {
      listener.close()
    }
  })

  test("--network: the host socket is reachable", async () => {
    const result = await withListener(() => clanka(["exec", "-C", workspace, "--network", "-e", script], { env }))
    expect(result).toEqual({ code: 0, stdout: "reached: host service\n\n", stderr: "" })
  })

  test(backend === BWRAP ? "a socket the script makes in its own /tmp, and socketpair, still work" : "socketpair still works; a socket of the script's own does not (Landlock cannot tell it from the host's)", async () => {
    const command = `${BUN} ${own} 2>&1 | grep -o 'own socket works\\|Failed to listen' | head -1; ${socketpair}`
    const result = await withListener(() => clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }))`], { env }))
    expect(result).toEqual({ code: 0, stdout: `${backend === BWRAP ? "own socket works" : "Failed to listen"}\nsocketpair ok\n\n`, stderr: "" })
  })
})

describe.skipIf(!BWRAP.available)("bounded /tmp (bwrap: Landlock has no /tmp of its own to bound)", () => {
  const size = 'console.log((await bash({ command: "df -B1 --output=size /tmp | tail -1" })).trim())'

  test("the private /tmp holds 1 GiB by default", async () => {
    const result = await clanka(["exec", "-C", workspace, "-e", size])
    expect(result).toEqual({ code: 0, stdout: "1073741824\n", stderr: "" })
  })

  test("--tmp-size 8M: writing past it fails with ENOSPC and the executor goes on", async () => {
    const script = `await bash({ command: "head -c 9437184 /dev/zero > /tmp/big" }).catch((error) => console.log(error.message.split("\\n")[1]))
console.log(await bash({ command: "rm /tmp/big; echo executor alive" }))`
    const result = await clanka(["exec", "-C", workspace, "--tmp-size", "8M", "-e", script])
    expect(result).toEqual({ code: 0, stdout: "head: error writing 'standard output': No space left on device\nexecutor alive\n\n", stderr: "" })
  })

  for (const user of users) {
    test.skipIf(user.skip ?? false)(`as ${user.who}, /dev/shm is bounded like /tmp and the rest of /dev takes no files (both are RAM)`, async () => {
      // bwrap's /dev is a tmpfs of half the machine's RAM, and tmpfs pages are not freed when the
      // script is killed: a script could fill it and bring the out-of-memory killer onto the host.
      const script = `await bash({ command: "head -c 9437184 /dev/zero > /dev/shm/big" }).catch((error) => console.log(error.message.split("\\n")[1]))
await bash({ command: "echo x > /dev/big" }).catch((error) => console.log(error.message.split("\\n")[1].replace(/^.*: /, "")))
console.log(await bash({ command: "rm /dev/shm/big; echo ok > /dev/shm/small && cat /dev/shm/small && echo x > /dev/null && echo executor alive" }))`
      const result = await user.run(["exec", "-C", user.dir, "--tmp-size", "8M", "-e", script], BWRAP.env)
      expect(result.stderr).toBe("")
      expect(result.stdout).toBe("head: error writing 'standard output': No space left on device\nRead-only file system\nok\nexecutor alive\n\n")
    })
  }

  test("--tmp-size reaches an executor started from outside (clanka executor --sandbox)", async () => {
    const executor = [BUN, MAIN, "executor", "-C", workspace, "--sandbox", "workspace-write", "--tmp-size", "4194304"].join(" ")
    const result = await clanka(["exec", "--executor", executor, "-e", size])
    expect(result).toEqual({ code: 0, stdout: "4194304\n", stderr: "" })
  })

  test("a --tmp-size that is not a size is exit 2 with one line", async () => {
    for (const value of ["0", "12X", "-1", "1.5G"]) {
      expect(await clanka(["exec", "-C", workspace, "--tmp-size", value, "-e", "1"])).toEqual({
        code: 2,
        stdout: "",
        stderr: `clanka: --tmp-size takes a size above zero in bytes or with K, M or G (e.g. 512M), got "${value}"\n`,
      })
    }
  })
})

/**
 * Directories named clanka-PID-N in the pids cgroup hierarchies (a sandbox's, while it runs) made
 * by the clanka with that pid: what it left behind once it is gone. Only its own: other test runs
 * on this machine make (and, killed, leave) cgroups of their own meanwhile.
 */
function pidsCgroups(pid: number): string[] {
  const found = Bun.spawnSync(["find", "/sys/fs/cgroup", "-maxdepth", "6", "-type", "d", "-name", `clanka-${pid}-*`], { stderr: "ignore" })
  return found.stdout.toString().split("\n").filter((dir) => new RegExp(`/clanka-${pid}-\\d+$`).test(dir))
}

for (const backend of BACKENDS) describe.skipIf(!backend.available)(`bounded processes (${backend.name})`, () => {
  // 3,000 processes at once: fewer than the bound start, the rest fail; the bomb then kills its own.
  // Its sleeps carry this test run's pid: another run's bomb may be going off meanwhile.
  const sleeps = `213.${process.pid}`
  const bomb = join(workspace, "bomb.pl")
  writeFileSync(
    bomb,
    `my ($ok, $fail, $err, @pids) = (0, 0, "");
for (1..3000) {
  my $pid = fork();
  if (!defined $pid) { $fail++; $err ||= "$!"; next }
  if ($pid == 0) { exec "sleep", "${sleeps}"; exit 0 }
  $ok++; push @pids, $pid;
}
print "started $ok; $err\\n";
kill "KILL", @pids; waitpid($_, 0) for @pids;`,
  )
  const script = `console.log(await bash({ command: "perl ${bomb}" }))
console.log(await bash({ command: "echo executor alive" }))`

  for (const user of users) {
    test.skipIf(user.skip ?? false)(`as ${user.who}: a fork bomb is stopped near 1,024 processes; the executor survives; nothing is left`, async () => {
      const result = await user.run(["exec", "-C", user.dir, "--sandbox", "read-only", "-e", script], backend.env)
      expect(result.stderr).toBe("")
      const match = result.stdout.match(/^started (\d+); (.*)\n\nexecutor alive\n\n$/)
      expect(match?.[2]).toBe("Resource temporarily unavailable")
      expect(Number(match?.[1])).toBeGreaterThan(900)
      expect(Number(match?.[1])).toBeLessThan(1100)
      const left = Bun.spawnSync(["pgrep", "-f", `^sleep ${sleeps}$`]).stdout.toString()
      expect(left).toBe("")
      expect(pidsCgroups(result.pid)).toEqual([])
    }, 60_000)
  }
})

// The executor keeps room of its own beyond its scripts' bound: while a script holds every process
// that bound allows, the executor still starts the threads it needs (here a second script's worker).
for (const backend of BACKENDS) {
  test.skipIf(!backend.available || process.getuid?.() !== 0)(`${backend.name}: a script holding every process its bound allows does not keep the executor from starting a second script`, async () => {
    const dir = join(root, `full-${backend.name}`)
    mkdirSync(dir, { recursive: true })
    const sleeps = `214.${process.pid}`
    writeFileSync(
      join(dir, "fill.pl"),
      `my @pids;
while (1) { my $pid = fork(); last unless defined $pid; if ($pid == 0) { exec "sleep", "${sleeps}"; exit 0 } push @pids, $pid }
open(my $f, ">", "full.tmp"); print $f scalar(@pids) . "\\n"; close($f); rename("full.tmp", "full.txt");
sleep 4; kill "KILL", @pids; waitpid($_, 0) for @pids;`,
    )
    const session = new RawSession(dir, ["--sandbox", "workspace-write", "--sandbox-backend", backend.name])
    try {
      session.send({ jsonrpc: "2.0", id: 1, method: "execute", params: { script: 'await bash({ command: "perl fill.pl" }); console.log("first")' } })
      const full = join(dir, "full.txt")
      // Filling takes seconds on a busy machine (two suites at once: more than ten).
      for (let i = 0; i < 1600 && !existsSync(full); i++) await Bun.sleep(25)
      const started = Number(readFileSync(full, "utf8"))
      // The first script's worker is busy: the second needs a thread of its own.
      session.send({ jsonrpc: "2.0", id: 2, method: "execute", params: { script: 'console.log("second")' } })
      const messages: any[] = []
      while (!(messages.some((message) => message.id === 1) && messages.some((message) => message.id === 2))) messages.push(await session.next(20_000))
      const text = (id: number) => messages.filter((message) => message.params?.id === id).map((message) => message.params.output?.text ?? "").join("")
      const result = (id: number) => messages.find((message) => message.id === id)
      expect({ filled: started > 900 && started < 1100, first: [text(1), result(1)], second: [text(2), result(2)] }).toEqual({
        filled: true,
        first: ["first\n", { jsonrpc: "2.0", id: 1, result: { ok: true } }],
        second: ["second\n", { jsonrpc: "2.0", id: 2, result: { ok: true } }],
      })
    } finally {
      session.child.stdin!.end()
      await session.exited
    }
    expect(Bun.spawnSync(["pgrep", "-f", `^sleep ${sleeps}$`]).stdout.toString()).toBe("")
  }, 90_000)
}

// run and exec make the sandbox's cgroup early (before the config is read): one the config then
// has no use for goes at exit, and one made early is the one the sandbox runs in.
describe.skipIf(process.getuid?.() !== 0)("the pids cgroup made ahead", () => {
  const config = join(root, "ahead-config")
  mkdirSync(join(config, "clanka"), { recursive: true })
  writeFileSync(join(config, "clanka", "config.json"), JSON.stringify({ sandbox: "off" }))

  test("the user's config turns the sandbox off: the cgroup made for it is gone at exit", async () => {
    const result = await spawnClanka([], ["exec", "-C", workspace, "-e", 'console.log(await bash({ command: "cat /proc/self/cgroup" }))'], workspace, { XDG_CONFIG_HOME: config })
    expect(result.stderr).toBe("")
    expect(result.stdout).not.toContain("clanka-")
    expect(pidsCgroups(result.pid)).toEqual([])
  })

  for (const backend of BACKENDS) {
    test.skipIf(!backend.available)(`${backend.name}: the sandbox runs in the first cgroup its clanka made, removed at exit`, async () => {
      const result = await spawnClanka([], ["exec", "-C", workspace, "-e", 'console.log(await bash({ command: "cat /proc/self/cgroup" }))'], workspace, backend.env)
      expect(result.stderr).toBe("")
      // The script's bash in the scripts' child of it (the executor is in its exec child).
      expect(result.stdout.split("\n").filter((line) => /^\d+:pids:|^0::/.test(line)).some((line) => line.endsWith(`/clanka-${result.pid}-1/scripts`))).toBe(true)
      expect(pidsCgroups(result.pid)).toEqual([])
    })
  }
})

for (const backend of BACKENDS) describe.skipIf(!backend.available)(`credential stores are hidden (${backend.name})`, () => {
  const base = join(root, `credentials-${backend.name}`)
  const home = join(base, "home")
  const env = {
    ...backend.env,
    HOME: home,
    CLANKA_HOME: join(base, "clanka-home"),
    XDG_STATE_HOME: join(base, "state"),
    XDG_CONFIG_HOME: join(base, "config"),
    XDG_CACHE_HOME: undefined,
  }
  const secrets: Record<string, string> = {
    ".ssh/id_ed25519": "",
    ".ssh/known_hosts": "",
    ".aws/credentials": "",
    ".azure/accessTokens.json": "",
    ".config/gcloud/credentials.db": "",
    ".kube/config": "",
    ".docker/config.json": "",
    ".netrc": "",
    ".git-credentials": "",
    ".config/gh/hosts.yml": "",
    ".npmrc": "",
    ".pypirc": "",
    ".local/state/clanka/sessions/s.jsonl": "",
    ".config/clanka/secret.txt": "",
  }
  const files = [
    ...Object.keys(secrets).map((path) => join(home, path)),
    join(env.CLANKA_HOME, "sessions", "s.jsonl"),
    join(env.XDG_STATE_HOME, "clanka", "trust.json"),
    join(env.XDG_CONFIG_HOME, "clanka", "secret.txt"),
  ]
  for (const file of files) {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, `clanka-cred-secret ${file}\n`)
  }
  // What stays visible: the rest of HOME and clanka's cache (uploaded binaries, the search index).
  writeFileSync(join(home, "notes.txt"), "visible note\n")
  mkdirSync(join(home, ".cache", "clanka", "bin"), { recursive: true })
  writeFileSync(join(home, ".cache", "clanka", "bin", "marker"), "visible cache\n")
  const visible = [join(home, "notes.txt"), join(home, ".cache", "clanka", "bin", "marker")]

  const routes: Record<string, string> = {
    cat: `console.log(await bash({ command: ${JSON.stringify([...files, ...visible].map((file) => `cat ${file} 2>&1`).join("; "))} }))`,
    ls: `console.log(await bash({ command: ${JSON.stringify(`ls -laR ${home} ${env.CLANKA_HOME} ${env.XDG_STATE_HOME} ${env.XDG_CONFIG_HOME} 2>&1; cat ${visible.join(" ")}`)} }))`,
    readFile: `for (const path of ${JSON.stringify([...files, ...visible])}) console.log(await readFile({ path }).catch((error) => error.message))`,
    // Under Landlock cat is refused the stores it finds, and fails: the output is what counts.
    find: `console.log(await bash({ command: ${JSON.stringify(`find ${base} -type f -exec cat {} + 2>&1; true`)} }))`,
  }
  for (const [route, script] of Object.entries(routes)) {
    test(`a script's ${route} reads none of them; the rest of HOME and clanka's cache stay readable`, async () => {
      const result = await clanka(["exec", "-C", workspace, "-e", script], { env })
      expect(result.code).toBe(0)
      expect(result.stdout).not.toContain("clanka-cred-secret")
      // bubblewrap hides their names too; Landlock refuses to open them, but cannot hide a name.
      const names = ["id_ed25519", "credentials.db", "accessTokens", "hosts.yml", "trust.json", "s.jsonl", "secret.txt"]
      if (route === "ls") for (const name of names) backend === BWRAP ? expect(result.stdout).not.toContain(name) : expect(result.stdout).toContain(name)
      expect(result.stdout).toContain("visible note")
      expect(result.stdout).toContain("visible cache")
    })
  }

  test("--readable PATH leaves that one readable (a file, a file inside a hidden directory); the others stay hidden", async () => {
    const script = `console.log(await bash({ command: ${JSON.stringify(files.map((file) => `cat ${file} 2>/dev/null`).join("; ") + "; true")} }))`
    const result = await clanka(["exec", "-C", workspace, "--readable", join(home, ".netrc"), "--readable", join(home, ".ssh", "known_hosts"), "-e", script], { env })
    expect(result.code).toBe(0)
    expect(result.stdout.match(/clanka-cred-secret .*/g)).toEqual([`clanka-cred-secret ${join(home, ".ssh", "known_hosts")}`, `clanka-cred-secret ${join(home, ".netrc")}`])
  })

  test("--sandbox off hides nothing", async () => {
    const result = await clanka(["exec", "-C", workspace, "--sandbox", "off", "-e", `console.log(await readFile({ path: ${JSON.stringify(join(home, ".netrc"))} }))`], { env })
    expect(result.stdout).toContain("clanka-cred-secret")
  })
})
