// What only the Landlock backend has to prove (the shared attacks are in os-sandbox.test.ts):
// Landlock and seccomp bind each thread, so every thread of the executor, the scripts' Worker
// among them, must be in the sandbox; the seccomp filter refuses what Landlock does not cover;
// the host's /tmp is closed but for the sandbox's own directory; what Landlock cannot keep
// read-only (the protected paths in the workspace) does not outlive a script.
import { afterAll, describe, expect, test } from "bun:test"
import { accessSync, chmodSync, constants, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, clanka, COMPILED, MAIN, ROOT } from "../support/cli.ts"
import { messagesUntil, outputText } from "../support/protocol-lines.ts"
import { LANDLOCK } from "../support/sandbox-backends.ts"

const root = mkdtempSync("/var/tmp/clanka-landlock-")
const workspace = join(root, "app")
mkdirSync(workspace)
afterAll(() => rmSync(root, { recursive: true, force: true }))
const env = LANDLOCK.env

/** Whether this process may make pids cgroups (root, a writable hierarchy): each sandbox then gets one. */
function pidsCgroups(): boolean {
  const lines = readFileSync("/proc/self/cgroup", "utf8").split("\n")
  const v1 = lines.find((line) => line.split(":")[1]?.split(",").includes("pids"))
  const dir = v1 ? join("/sys/fs/cgroup/pids", v1.split(":")[2]!) : join("/sys/fs/cgroup", lines.find((line) => line.startsWith("0::"))?.slice(3) ?? "/")
  try {
    accessSync(join(dir, "cgroup.procs"), constants.W_OK)
    return process.getuid?.() === 0
  } catch {
    return false
  }
}

describe.skipIf(!LANDLOCK.available)("the Landlock sandbox", () => {
  // Two ways the step starts: `run`, `exec` and `tool` hand it to the standby started beside them
  // (standby.ts); other commands (`acp`, `batch`, the MCP relay here) spawn it.
  for (const route of ["the standby (exec)", "spawned (the relay of clanka executor --sandbox)"] as const) {
    test(`every thread of the executor, the scripts' Worker among them, is in the sandbox; compiled, the step's own process is the executor: ${route}`, async () => {
      // bash's parent is the executor. From inside the sandbox a thread's environ can be read only
      // when that thread is in the same Landlock domain (or one nested in it): an unrestricted
      // thread would be refused, as the agent is.
      const command = `tr '\\0' ' ' < /proc/$PPID/cmdline; echo
for t in /proc/$PPID/task/*; do
  echo "$(cat $t/comm): $(grep -E '^(NoNewPrivs|Seccomp):' $t/status | tr -s '\\t\\n' '  ')$(cat $t/environ >/dev/null 2>&1 && echo in the domain || echo OUTSIDE)"
done
echo "the executor's own settings in a command's environment: $(env | grep -c -E '^(BUN_JSC_|MIMALLOC_)')"
cat /proc/$(ps -o ppid= -p $PPID)/environ >/dev/null 2>&1 && echo "the agent: OPEN" || echo "the agent: refused"`
      const standby = route === "the standby (exec)"
      const script = `console.log(await bash({ command: ${JSON.stringify(command)} }))`
      const result = standby ? await clanka(["exec", "-C", workspace, "-e", script], { env }) : await relayed(script)
      expect(result.stderr).toBe("")
      const lines = result.stdout.trim().split("\n")
      const executor = `executor -C ${workspace} --sandbox workspace-write --sandbox-backend landlock`
      // The compiled binary's step runs one thread, and goes on as the executor (landlock-in-place.ts).
      // From source Bun runs a JIT thread before the first line: the step executes the executor.
      if (COMPILED && standby) {
        expect(lines[0]).toBe(`${COMPILED} __standby landlock `)
      } else if (COMPILED) {
        expect(lines[0]).toStartWith(`${COMPILED} __landlock-exec `)
        expect(lines[0]).toEndWith(` -- ${COMPILED} ${executor} `)
      } else {
        expect(lines[0]).toStartWith(`${BUN} `)
        expect(lines[0]).toEndWith(`${MAIN} ${executor} `)
        expect(lines[0]).not.toContain("__landlock-exec")
      }
      expect(lines.slice(-2)).toEqual(["the executor's own settings in a command's environment: 0", "the agent: refused"])
      const threads = lines.slice(1, -2)
      // The main thread, Bun's pools and JSC's helpers, and the Worker that runs scripts.
      expect(threads.length).toBeGreaterThan(3)
      expect(threads.some((line) => line.startsWith("Worker: "))).toBe(true)
      for (const line of threads) expect(line).toMatch(/^[^:]+: NoNewPrivs: 1 Seccomp: 2 in the domain$/)
    })
  }

  test("the seccomp filter refuses ptrace, keyrings, BPF, perf, io_uring, namespaces and typing into a terminal", async () => {
    // Raw syscalls through perl, with this architecture's numbers; each prints its errno (1: EPERM).
    const numbers: Record<string, Record<string, number>> = {
      x64: { ptrace: 101, keyctl: 250, bpf: 321, perf_event_open: 298, io_uring_setup: 425, unshare: 272, ioctl: 16, clone3: 435 },
      arm64: { ptrace: 117, keyctl: 219, bpf: 280, perf_event_open: 241, io_uring_setup: 425, unshare: 97, ioctl: 29, clone3: 435 },
    }
    const nr = numbers[process.arch]!
    const calls: Record<string, string> = {
      "ptrace(PTRACE_TRACEME)": `${nr.ptrace}, 0, 0, 0, 0`,
      "keyctl(GET_KEYRING_ID, session)": `${nr.keyctl}, 0, -3, 0`,
      "bpf(MAP_CREATE)": `${nr.bpf}, 0, 0, 0`,
      "perf_event_open": `${nr.perf_event_open}, 0, 0, -1, -1, 0`,
      "io_uring_setup": `${nr.io_uring_setup}, 1, 0`,
      "unshare(CLONE_NEWUSER)": `${nr.unshare}, 0x10000000`,
      "ioctl(TIOCSTI)": `${nr.ioctl}, 0, 0x5412, 0`,
      "clone3 (38: ENOSYS)": `${nr.clone3}, 0, 0`,
    }
    const command = Object.entries(calls)
      .map(([name, args]) => `perl -e '$! = 0; syscall(${args}); print "${name}: ", $! + 0, "\\n"'`)
      .join("; ")
    const result = await clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }))`], { env })
    expect(result).toEqual({
      code: 0,
      stdout: `${Object.keys(calls)
        .map((name) => `${name}: ${name.startsWith("clone3") ? 38 : 1}`)
        .join("\n")}\n\n`,
      stderr: "",
    })
  })

  test("a script cannot set the resource limits of a process outside the sandbox (prlimit); its own still change", async () => {
    const outside = Bun.spawn(["sleep", "30"], { stdio: ["ignore", "ignore", "ignore"] })
    try {
      const limits = () => readFileSync(`/proc/${outside.pid}/limits`, "utf8")
      const before = limits()
      const command = `prlimit --pid ${outside.pid} --nofile=5:5 --core=unlimited 2>&1; ulimit -n 100 && ulimit -n; true`
      const result = await clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }))`], { env })
      expect(limits()).toBe(before)
      expect(result).toEqual({ code: 0, stdout: expect.stringMatching(/^prlimit: failed to set the \w+ resource limit: Operation not permitted\n100\n\n$/), stderr: "" })
    } finally {
      outside.kill()
    }
  })

  test("the host's System V shared memory and message queues are out of reach, as in bubblewrap's IPC namespace", async () => {
    // A segment and a queue of the host, made outside (the script would remove them by id).
    const made = Bun.spawnSync(["sh", "-c", "ipcmk -M 4096 -p 0600 && ipcmk -Q -p 0600"], { stdout: "pipe", stderr: "pipe" })
    expect(made.exitCode).toBe(0)
    const ids = [...made.stdout.toString().matchAll(/id: (\d+)/g)].map((match) => match[1]!)
    expect(ids).toHaveLength(2)
    try {
      const command = `ipcrm -m ${ids[0]} 2>&1; ipcrm -q ${ids[1]} 2>&1; ipcmk -M 4096 2>&1; true`
      const result = await clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }))`], { env })
      expect(result).toEqual({
        code: 0,
        stdout: `ipcrm: permission denied for id (${ids[0]})\nipcrm: permission denied for id (${ids[1]})\nipcmk: create share memory failed: Operation not permitted\n\n`,
        stderr: "",
      })
      const left = Bun.spawnSync(["ipcs", "-m", "-q"]).stdout.toString()
      for (const id of ids) expect(left).toMatch(new RegExp(`^0x\\w+ +${id} `, "m"))
    } finally {
      Bun.spawnSync(["ipcrm", "-m", ids[0]!, "-q", ids[1]!])
    }
  })

  test("what bash changes in the protected paths does not outlive the script: put back, and both the model and the user are told", async () => {
    const repo = join(root, "repo")
    mkdirSync(join(repo, ".clanka"), { recursive: true })
    const git = (...args: string[]) => Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo, stdout: "pipe", stderr: "pipe" })
    git("init", "-q", ".")
    writeFileSync(join(repo, "clanka.json"), "{}\n")
    writeFileSync(join(repo, ".mcp.json"), "{}\n")
    const config = readFileSync(join(repo, ".git/config"), "utf8")
    const hooks = readdirSync(join(repo, ".git/hooks")).sort()
    const marker = join(root, "hook-ran")
    // Landlock cannot refuse these writes (a rule grants beneath the whole workspace).
    const attack = [
      `printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
      `printf '[core]\\n\\tfsmonitor = touch ${marker}\\n' >> .git/config`,
      `echo '{"sandbox":"off"}' > clanka.json`,
      "rm .mcp.json",
      "echo x > .clanka/settings.json",
      "echo kept > src.txt",
    ].join(" && ")
    const script = `await bash({ command: ${JSON.stringify(attack)} }); console.log("done")`
    const result = await clanka(["exec", "-C", repo, "-e", script], { env })
    const changed = [join(repo, "clanka.json"), join(repo, ".mcp.json"), join(repo, ".clanka"), join(repo, ".git/hooks"), join(repo, ".git/config")].join(", ")
    expect(result).toEqual({
      code: 0,
      stdout: `done\n[sandbox: a script changed ${changed}, which stay read-only; put back as they were]\n`,
      stderr: `clanka: sandbox: a script changed ${changed}, which stay read-only; put back as they were\n`,
    })
    expect(readFileSync(join(repo, ".git/config"), "utf8")).toBe(config)
    expect(readdirSync(join(repo, ".git/hooks")).sort()).toEqual(hooks)
    expect(readFileSync(join(repo, "clanka.json"), "utf8")).toBe("{}\n")
    expect(readFileSync(join(repo, ".mcp.json"), "utf8")).toBe("{}\n")
    expect(readdirSync(join(repo, ".clanka"))).toEqual([])
    // Ordinary work stays; git outside the sandbox runs no hook of the script's.
    expect(readFileSync(join(repo, "src.txt"), "utf8")).toBe("kept\n")
    git("add", "src.txt")
    expect(git("commit", "-qm", "work").exitCode).toBe(0)
    expect(existsSync(marker)).toBe(false)
  })

  test("a large .clanka/ (one an earlier script may have left) does not leave git's hooks and config unkept", async () => {
    const repo = join(root, "large")
    mkdirSync(join(repo, ".clanka"), { recursive: true })
    Bun.spawnSync(["git", "init", "-q", "."], { cwd: repo })
    // Sparse: 100 MB that take no room, past what is kept of the protected paths.
    Bun.spawnSync(["truncate", "-s", "100M", join(repo, ".clanka", "pad")])
    const config = readFileSync(join(repo, ".git/config"), "utf8")
    const attack = `printf '[core]\\n\\tfsmonitor = touch ${join(root, "large-ran")}\\n' >> .git/config`
    const result = await clanka(["exec", "-C", repo, "-e", `await bash({ command: ${JSON.stringify(attack)} }); console.log("done")`], { env })
    expect(result).toEqual({
      code: 0,
      stdout: `done\n[sandbox: a script changed ${join(repo, ".git/config")}, which stay read-only; put back as they were]\n`,
      stderr: `clanka: sandbox: a script changed ${join(repo, ".git/config")}, which stay read-only; put back as they were\n`,
    })
    expect(readFileSync(join(repo, ".git/config"), "utf8")).toBe(config)
  })

  test("a sandbox started while another's script has changed .git/config puts back the state from before that change, not the change", async () => {
    const repo = join(root, "two")
    mkdirSync(repo)
    Bun.spawnSync(["git", "init", "-q", "."], { cwd: repo })
    const config = readFileSync(join(repo, ".git/config"), "utf8")
    const wait = (name: string) => `for i in $(seq 400); do [ -e ${name} ] && break; sleep 0.025; done`
    // A changes the config and holds it so until B has started; B runs on until A has ended.
    const first = `printf '[core]\\n\\tfsmonitor = touch ${join(root, "two-ran")}\\n' >> .git/config; touch a-changed; ${wait("b-started")}`
    const a = clanka(["exec", "-C", repo, "-e", `await bash({ command: ${JSON.stringify(first)} })`], { env })
    for (let i = 0; i < 400 && !existsSync(join(repo, "a-changed")); i++) await Bun.sleep(25)
    const b = clanka(["exec", "-C", repo, "-e", `await bash({ command: ${JSON.stringify(`touch b-started; ${wait("a-ended")}`)} })`], { env })
    const resultA = await a
    writeFileSync(join(repo, "a-ended"), "")
    const resultB = await b
    expect(resultA.stderr).toBe(`clanka: sandbox: a script changed ${join(repo, ".git/config")}, which stay read-only; put back as they were\n`)
    expect(resultB).toEqual({ code: 0, stdout: "", stderr: "" })
    expect(readFileSync(join(repo, ".git/config"), "utf8")).toBe(config)
  })

  test.skipIf(process.getuid?.() !== 0 || !Bun.which("setpriv"))("as a normal user, a script that makes .git unwritable (chmod 555, hooks 000) does not keep .git/config and .git/hooks from being put back", async () => {
    // A uid of this test run's own; clanka runs as that user (root would write there anyway).
    const uid = 1_000_000_000 + process.pid
    chmodSync(root, 0o755)
    const home = join(root, "user-home")
    const repo = join(root, "user-repo")
    mkdirSync(home)
    mkdirSync(repo)
    Bun.spawnSync(["git", "init", "-q", "."], { cwd: repo })
    Bun.spawnSync(["chown", "-R", `${uid}:${uid}`, home, repo])
    const config = readFileSync(join(repo, ".git/config"), "utf8")
    const hooks = readdirSync(join(repo, ".git/hooks")).sort()
    const attack = `printf '[core]\\n\\tfsmonitor = touch ${join(root, "user-ran")}\\n' >> .git/config && echo x > .git/hooks/pre-commit && chmod 000 .git/hooks && chmod 555 .git`
    const child = Bun.spawn(["setpriv", "--reuid", String(uid), "--regid", String(uid), "--clear-groups", "--", BUN, MAIN, "exec", "-C", repo, "-e", `await bash({ command: ${JSON.stringify(attack)} }); console.log("done")`], {
      cwd: repo,
      env: { ...process.env, NO_COLOR: "1", HOME: home, ...env },
      stdout: "pipe",
      stderr: "pipe",
    })
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited])
    expect({ code, stdout }).toEqual({ code: 0, stdout: `done\n[sandbox: a script changed ${join(repo, ".git/hooks")}, ${join(repo, ".git/config")}, which stay read-only; put back as they were]\n` })
    expect(readFileSync(join(repo, ".git/config"), "utf8")).toBe(config)
    expect(readdirSync(join(repo, ".git/hooks")).sort()).toEqual(hooks)
  })

  test.skipIf(process.getuid?.() !== 0 || !Bun.which("setpriv"))("as a normal user, a repository a script adds to the index in a directory it made unwritable (chmod 555) is still quarantined", async () => {
    const uid = 1_000_000_000 + process.pid
    chmodSync(root, 0o755)
    const home = join(root, "nested-home")
    const repo = join(root, "nested-repo")
    mkdirSync(home)
    mkdirSync(repo)
    Bun.spawnSync(["git", "init", "-q", "."], { cwd: repo })
    Bun.spawnSync(["chown", "-R", `${uid}:${uid}`, home, repo])
    const attack = `mkdir sub && git -C sub init -q && git -C sub -c user.name=t -c user.email=t@t commit -q --allow-empty -m x && printf '[core]\\n\\tfsmonitor = touch ${join(root, "nested-ran")}\\n' >> sub/.git/config && git add sub 2>/dev/null && chmod 555 sub`
    const child = Bun.spawn(["setpriv", "--reuid", String(uid), "--regid", String(uid), "--clear-groups", "--", BUN, MAIN, "exec", "-C", repo, "-e", `await bash({ command: ${JSON.stringify(attack)} }); console.log("done")`], {
      cwd: repo,
      env: { ...process.env, NO_COLOR: "1", HOME: home, ...env },
      stdout: "pipe",
      stderr: "pipe",
    })
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited])
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.stringContaining(`so its .git is now ${join(repo, "sub", ".git.clanka-quarantined")}`) })
    expect(existsSync(join(repo, "sub", ".git"))).toBe(false)
  })

  test("putting the protected paths back never follows a symlink a script running in the background swaps in: nothing is written outside", async () => {
    const repo = join(root, "race")
    mkdirSync(join(repo, ".clanka"), { recursive: true })
    Bun.spawnSync(["git", "init", "-q", "."], { cwd: repo })
    // A repository's .clanka/ with many files (the restore writes them one by one) and the payload last.
    for (let i = 0; i < 300; i++) writeFileSync(join(repo, ".clanka", `a${String(i).padStart(3, "0")}`), `filler ${i}\n`)
    writeFileSync(join(repo, ".clanka", "zzz"), "echo ran on the host\n")
    const target = join(root, "outside-target")
    // A loop left running makes zzz a symlink out of the workspace whenever it is missing.
    const loop = `while :; do ln -s ${target} .clanka/zzz 2>/dev/null; done`
    const script = `await bash({ command: ${JSON.stringify(`setsid sh -c '${loop}' </dev/null >/dev/null 2>&1 & rm -f .clanka/zzz; sleep 0.3`)} }); console.log("done")`
    const result = await clanka(["exec", "-C", repo, "-e", script], { env })
    expect(result.stdout).toStartWith("done\n[sandbox: a script changed ")
    expect(existsSync(target)).toBe(false)
    expect(readFileSync(join(repo, ".clanka", "zzz"), "utf8")).toBe("echo ran on the host\n")
    expect(readdirSync(join(repo, ".clanka"))).toHaveLength(301)
  })

  test.skipIf(!pidsCgroups())("a process that drops the executor's tag and leaves the session dies when clanka is killed outright (root: the sandbox's pids cgroup)", async () => {
    const marker = join(workspace, "untagged-pid")
    // No tag for the guardian to find, in a session of its own, its parent gone.
    const command = `env -u CLANKA_EXECUTOR_TAG setsid sh -c 'echo $$ > ${marker}; exec sleep 120' </dev/null >/dev/null 2>&1 & sleep 120`
    const child = Bun.spawn([BUN, join(ROOT, "src/cli/main.ts"), "exec", "-C", workspace, "-e", `await bash({ command: ${JSON.stringify(command)} })`], {
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdout: "ignore",
      stderr: "ignore",
    })
    const gone = (pid: number) => !existsSync(`/proc/${pid}/stat`) || readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z")
    let pid = 0
    for (let i = 0; i < 200 && !pid; i++) {
      await Bun.sleep(50)
      pid = Number(existsSync(marker) ? readFileSync(marker, "utf8").trim() : 0)
    }
    expect(pid).toBeGreaterThan(0)
    expect(readFileSync(`/proc/${pid}/environ`, "utf8")).not.toContain("CLANKA_EXECUTOR_TAG")
    child.kill("SIGKILL")
    await child.exited
    // Its private temporary directory, left behind (the next clanka's start would remove it).
    const tmp = process.env.TMPDIR ?? "/tmp"
    for (const name of readdirSync(tmp)) if (name.startsWith(`clanka-sandbox-${child.pid}-`)) rmSync(join(tmp, name), { recursive: true, force: true })
    rmSync(marker)
    for (let i = 0; i < 60 && !gone(pid); i++) await Bun.sleep(50)
    const left = !gone(pid)
    if (left) process.kill(pid, "SIGKILL")
    expect(left).toBe(false)
  })

  test.skipIf(!pidsCgroups())("the Landlock step puts the executor into its pids cgroup, and what scripts run into the scripts' part of it", async () => {
    // The Landlock step enters the cgroup itself (`__landlock-exec … --cgroup DIR`), then becomes the executor.
    const command = "grep clanka- /proc/self/cgroup || echo none; grep clanka- /proc/$PPID/cgroup || echo none"
    const result = await clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }))`], { env })
    expect(result.stderr).toBe("")
    const [script, executor] = result.stdout.trim().split("\n")
    expect(script).toMatch(/clanka-\d+-\d+\/scripts$/)
    expect(executor).toBe(script!.replace(/scripts$/, "exec"))
  })

  test("a Landlock step that cannot enter its pids cgroup runs nothing and names the cgroup", async () => {
    const marker = join(root, "ran-outside-the-cgroup")
    const step = Bun.spawn([BUN, MAIN, "__landlock-exec", join(root, "no-plan.json"), "--cgroup", join(root, "no-such-cgroup"), "--", "/usr/bin/touch", marker], { stdout: "pipe", stderr: "pipe" })
    const [stderr, code] = await Promise.all([new Response(step.stderr).text(), step.exited])
    expect({ code, stderr }).toEqual({ code: 1, stderr: `clanka: cannot enter the pids cgroup ${join(root, "no-such-cgroup")}: ENOENT\n` })
    expect(existsSync(marker)).toBe(false)
  })

  test("a HOME with thousands of entries (each read rule of its own beside the credential stores) still starts", async () => {
    const home = join(root, "big-home")
    mkdirSync(join(home, ".ssh"), { recursive: true })
    writeFileSync(join(home, ".ssh", "id_ed25519"), "secret key\n")
    for (let i = 0; i < 3000; i++) writeFileSync(join(home, `a-file-with-a-rather-long-name-so-that-the-plan-grows-${i}.txt`), `${i}\n`)
    const command = `cat $HOME/a-file-with-a-rather-long-name-so-that-the-plan-grows-2999.txt; cat $HOME/.ssh/id_ed25519 2>&1 || true`
    const result = await clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }))`], { env: { ...env, HOME: home } })
    expect(result).toEqual({ code: 0, stdout: `2999\ncat: ${home}/.ssh/id_ed25519: Permission denied\n\n`, stderr: "" })
  })

  test("a workspace that holds a credential store (-C ~) is exit 2 naming --readable: Landlock could not hide it there", async () => {
    const home = join(root, "home-workspace")
    mkdirSync(join(home, ".aws"), { recursive: true })
    writeFileSync(join(home, ".aws", "credentials"), "secret\n")
    const refused = await clanka(["exec", "-C", home, "-e", 'console.log(await bash({ command: "cat .aws/credentials" }))'], { env: { ...env, HOME: home } })
    expect(refused).toEqual({
      code: 2,
      stdout: "",
      stderr: `clanka: ${home}/.aws is a credential store inside a writable directory, which the Landlock sandbox cannot hide; pass --readable ${home}/.aws to leave it open to scripts (writable there), work in a project directory instead, or use bubblewrap\n`,
    })
    const allowed = await clanka(["exec", "-C", home, "--readable", join(home, ".aws"), "-e", 'console.log(await bash({ command: "cat .aws/credentials" }))'], { env: { ...env, HOME: home } })
    expect(allowed).toEqual({ code: 0, stdout: "secret\n\n", stderr: "" })
  })

  test.skipIf(process.getuid?.() !== 0)("a container's secrets (/run/secrets, a Kubernetes service account token) cannot be read", async () => {
    const made = !existsSync("/run/secrets")
    const dir = join("/run/secrets", `clanka-test-${process.pid}`)
    mkdirSync(dir, { recursive: true })
    try {
      writeFileSync(join(dir, "token"), "a service account token\n")
      const command = `cat ${dir}/token 2>&1; true`
      const result = await clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }))`], { env })
      expect(result).toEqual({
        code: 0,
        stdout: `cat: ${dir}/token: Permission denied\n\n`,
        stderr: "",
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
      // Only if it is empty: another test run at the same time may have its own directory there.
      if (made) rmdirIfEmpty("/run/secrets")
    }
  })

  test("the host's /tmp cannot be read; the sandbox's own temporary directory can", async () => {
    const host = mkdtempSync("/tmp/clanka-landlock-host-")
    try {
      writeFileSync(join(host, "note"), "host secret\n")
      const command = `cat ${host}/note 2>&1; echo mine > $TMPDIR/note && cat $TMPDIR/note`
      const result = await clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }).catch((error) => error.message))`], { env })
      expect(result.stdout).toBe(`cat: ${host}/note: Permission denied\nmine\n\n`)
    } finally {
      rmSync(host, { recursive: true, force: true })
    }
  })

  test("with TMPDIR outside /tmp, the other sandboxes' private directories beside its own cannot be read: those there at the start and those made later", async () => {
    const base = join(root, "tmpdir")
    mkdirSync(join(base, "clanka-sandbox-1-before"), { recursive: true, mode: 0o700 })
    writeFileSync(join(base, "clanka-sandbox-1-before", "secret"), "another session's file\n")
    const ready = join(workspace, "tmpdir-ready")
    const later = join(base, "clanka-sandbox-1-later")
    const command = `touch ${ready}; for i in $(seq 100); do [ -e ${later}/secret ] && break; sleep 0.05; done
cat ${base}/clanka-sandbox-1-before/secret ${later}/secret 2>&1; echo mine > $TMPDIR/note && cat $TMPDIR/note; true`
    const run = clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }))`], { env: { ...env, TMPDIR: base } })
    for (let i = 0; i < 200 && !existsSync(ready); i++) await Bun.sleep(25)
    mkdirSync(later, { mode: 0o700 })
    writeFileSync(join(later, "secret"), "a later session's file\n")
    const result = await run
    rmSync(ready, { force: true })
    expect(result).toEqual({
      code: 0,
      stdout: `cat: ${base}/clanka-sandbox-1-before/secret: Permission denied\ncat: ${later}/secret: Permission denied\nmine\n\n`,
      stderr: "",
    })
  })

  test("clanka run from a source checkout under /tmp: the executor reads its own modules there", async () => {
    // A copy, not a symlink: Landlock checks a path where its symlinks lead.
    const checkout = mkdtempSync("/tmp/clanka-landlock-checkout-")
    try {
      cpSync(join(ROOT, "src"), join(checkout, "src"), { recursive: true })
      cpSync(join(ROOT, "package.json"), join(checkout, "package.json"))
      symlinkSync(realpathSync(join(ROOT, "node_modules")), join(checkout, "node_modules"))
      const child = Bun.spawn([BUN, join(checkout, "src/cli/main.ts"), "exec", "-C", workspace, "-e", 'console.log(await bash({ command: "echo sandboxed" }))'], {
        env: { ...process.env, NO_COLOR: "1", ...env },
        stdout: "pipe",
        stderr: "pipe",
      })
      const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
      expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: "sandboxed\n\n", stderr: "" })
    } finally {
      rmSync(checkout, { recursive: true, force: true })
    }
  })
})

function rmdirIfEmpty(path: string): void {
  try {
    rmdirSync(path)
  } catch {
    // not empty, or gone already
  }
}

/**
 * `script` run by `clanka executor --sandbox workspace-write` (Landlock), which relays to the
 * sandboxed executor it spawns: what the script printed, and the relay's stderr.
 */
async function relayed(script: string): Promise<{ stdout: string; stderr: string }> {
  const child = Bun.spawn([...(COMPILED ? [COMPILED] : [BUN, MAIN]), "executor", "-C", workspace, "--sandbox", "workspace-write"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, ...env },
    timeout: 20_000,
  })
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "execute", params: { script } }) + "\n")
  child.stdin.flush()
  const messages = await messagesUntil(child.stdout, 1)
  child.stdin.end()
  await child.exited
  return { stdout: outputText(messages), stderr: await new Response(child.stderr).text() }
}
