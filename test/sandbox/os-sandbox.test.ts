// The OS sandbox, tried as a hostile script would: against each Linux backend (bubblewrap, and
// Landlock with seccomp), through the real CLI. A script cannot print the agent's key by any route
// nor signal the agent, cannot write outside the workspace by any route, cannot reach a server
// outside the sandbox unless --network is given, and leaves no process behind.
import { afterAll, describe, expect, test } from "bun:test"
import { createSocket } from "node:dgram"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BUN, clanka, MAIN } from "../support/cli.ts"
import { startFakeModel } from "../support/fake-model.ts"
import { findProcess, ownSleep } from "../support/processes.ts"
import { BACKENDS, refusedWrite } from "../support/sandbox-backends.ts"

// Outside /tmp, whose sandbox copy is private: the workspace's parent is really outside.
const root = mkdtempSync("/var/tmp/clanka-os-sandbox-")
const workspace = join(root, "app")
const outside = join(root, "outside")
const home = join(root, "home")
for (const dir of [workspace, outside, home]) mkdirSync(dir)
writeFileSync(join(workspace, "README.md"), "hello\n")
afterAll(() => rmSync(root, { recursive: true, force: true }))

const SECRET = "sk-ant-clanka-secret-4242"

/** The agent's prompt: its own per test run, so that a run beside this one is not taken for it. */
const PROMPT = `look around 77${process.pid}`

/**
 * Every route a script has to the agent's environment and process; each prints what it found.
 * The agent is found by its prompt in its command line (the pattern split so that it does not
 * match the shell that looks). The words a success prints are split in the commands too: where
 * there is no pid namespace (Landlock), `ps` lists the probes of a run beside this one.
 */
const EXFILTRATE = String.raw`
const agent = "for p in $(pgrep -f 'look aro''und ${PROMPT.slice("look around ".length)}'); do "
const tries = {
  env: () => bash({ command: "env" }),
  procEnviron: () => bash({ command: "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'" }),
  parentEnviron: () => bash({ command: "cat /proc/$PPID/environ /proc/1/environ 2>/dev/null | tr '\\0' '\\n'" }),
  agentEnviron: () => bash({ command: agent + "echo agent found; cat /proc/$p/environ; done 2>&1 | tr '\\0' '\\n'; true" }),
  agentMemory: () => bash({ command: agent + "head -c 4096 /proc/$p/mem; cat /proc/$p/fd/0; done 2>&1; true" }),
  signalAgent: () => bash({ command: agent + "kill -STOP $p && echo STOP''PED; kill -TERM $p && echo SIGNAL''LED; done 2>&1; true" }),
  ps: () => bash({ command: "ps e -ww -A 2>&1 || true" }),
  procCmdline: () => bash({ command: "cat /proc/*/cmdline 2>/dev/null | tr '\\0' ' '" }),
  realmGlobal: () => globalThis.constructor.constructor("return JSON.stringify(process.env)")(),
  realmConsole: () => console.log.constructor("return JSON.stringify(process.env)")(),
  realmPromise: () => readFile({ path: "README.md" }).constructor.constructor("return JSON.stringify(process.env)")(),
}
for (const [name, attempt] of Object.entries(tries)) {
  try { console.log(name, String(await attempt())) } catch (error) { console.log(name, "failed:", error.message) }
}`

/** `bash` of each command; one line each: `NAME: refused` or `NAME: WORKED`. */
function attempts(commands: Record<string, string>): string {
  const lines = Object.entries(commands).map(([name, command]) => `if (${command}) >/dev/null 2>&1; then echo "${name}: WORKED"; else echo "${name}: refused"; fi`)
  return `console.log(await bash({ command: ${JSON.stringify(lines.join("\n"))} }))`
}

for (const backend of BACKENDS) {
  const env = backend.env
  const refused = refusedWrite(backend)
  const writableHint =
    backend.name === "bwrap"
      ? "[sandbox: only the workspace, /tmp and --writable DIRs are writable (--sandbox workspace-write); pass --writable DIR, or --sandbox off]"
      : "[sandbox: only the workspace, $TMPDIR and --writable DIRs are writable (--sandbox workspace-write); pass --writable DIR, or --sandbox off]"

  describe.skipIf(!backend.available)(`the OS sandbox (${backend.name})`, () => {
    test("a script under clanka run cannot print the agent's key nor signal the agent: env, /proc, ps e, realm escapes", async () => {
      const server = await startFakeModel("anthropic", [
        { blocks: [{ type: "execute", script: EXFILTRATE }] },
        { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] },
      ])
      try {
        const keys = { ...server.env, ANTHROPIC_API_KEY: SECRET, OPENAI_API_KEY: SECRET, EXA_API_KEY: SECRET, GITHUB_TOKEN: SECRET }
        const result = await clanka(["run", "--json", "-C", workspace, "-m", "anthropic/claude-sonnet-4-5", PROMPT], { env: { ...keys, ...env } })
        expect(result.code).toBe(0)
        const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
        expect(events[0]).toMatchObject({ _tag: "AgentStart", sandbox: { mode: "workspace-write", network: false, backend: backend.name } })
        const output = events.find((event) => event._tag === "ScriptOutput").output as string
        // Every route ran, and none found the key.
        for (const name of ["env", "procEnviron", "parentEnviron", "agentEnviron", "agentMemory", "signalAgent", "ps", "procCmdline", "realmGlobal", "realmConsole", "realmPromise"]) {
          expect(output).toContain(`${name} `)
        }
        expect(output).not.toContain(SECRET)
        expect(result.stderr).not.toContain(SECRET)
        expect(output).not.toContain("STOPPED")
        expect(output).not.toContain("SIGNALLED")
        // bubblewrap's pid namespace hides the agent; under Landlock it is seen, and refused.
        if (backend.name === "landlock") {
          expect(output).toContain("agent found")
          expect(output).toMatch(/environ: Permission denied/)
          expect(output).toMatch(/\/mem' for reading: Permission denied/)
          expect(output).toMatch(/\/fd\/0: Permission denied/)
          expect(output).toMatch(/kill: \(\d+\) - Operation not permitted/)
        } else expect(output).not.toContain("agent found")
        // The model's request carried it, so it was there to steal.
        expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`)
      } finally {
        await server.close()
      }
    })

    test("every process a script starts, setsid or double-forked, is gone when the run ends", async () => {
      // Inside bubblewrap's pid namespace $$ is not this machine's pid: the sleepers are found by
      // command lines no other process uses.
      const [first, second] = [ownSleep("207.11"), ownSleep("207.12")]
      const command = `setsid sleep ${first} >/dev/null 2>&1 & (sh -c 'exec sleep ${second}' >/dev/null 2>&1 &); sleep 0.3; ps -A -o args= | grep -cE '^sleep (${first}|${second})$'`
      const server = await startFakeModel("anthropic", [
        { blocks: [{ type: "execute", script: `console.log("running:", (await bash({ command: ${JSON.stringify(command)} })).trim())` }] },
        { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] },
      ])
      try {
        const result = await clanka(["run", "--json", "-C", workspace, "-m", "anthropic/claude-sonnet-4-5", "start sleepers"], { env: { ...server.env, ...env } })
        expect(result.code).toBe(0)
        const output = result.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line)).find((event) => event._tag === "ScriptOutput").output
        expect(output).toBe("running: 2\n")
        let left = true
        for (let i = 0; i < 100 && left; i++) {
          left = Boolean(findProcess(["sleep", first]) || findProcess(["sleep", second]))
          if (left) await Bun.sleep(20)
        }
        expect(left).toBe(false)
      } finally {
        await server.close()
      }
    })

    test("clanka killed outright: the executor and every process its scripts started end too", async () => {
      const [setsid, orphan] = backend.name === "bwrap" ? [ownSleep("301.71"), ownSleep("301.72")] : [ownSleep("301.81"), ownSleep("301.82")]
      const script = `await bash({ command: "setsid sleep ${setsid} >/dev/null 2>&1 & (sh -c 'exec sleep ${orphan}' >/dev/null 2>&1 &); sleep 0.2" }); console.log("started"); await sleep(60000)`
      const child = Bun.spawn([BUN, MAIN, "exec", "-C", workspace, "-e", script], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "ignore" })
      const reader = child.stdout.getReader()
      expect(new TextDecoder().decode((await reader.read()).value)).toBe("started\n")
      expect(findProcess(["sleep", setsid]) !== undefined && findProcess(["sleep", orphan]) !== undefined).toBe(true)
      child.kill("SIGKILL")
      await child.exited
      let left = true
      for (let i = 0; i < 250 && left; i++) {
        left = Boolean(findProcess(["sleep", setsid]) || findProcess(["sleep", orphan]))
        if (left) await Bun.sleep(20)
      }
      expect(left).toBe(false)
      // What a killed clanka leaves (the Landlock sandbox's temporary directory) the next one removes.
      const leftover = readdirSync(tmpdir()).filter((name) => name.startsWith(`clanka-sandbox-${child.pid}-`))
      expect(leftover).toHaveLength(backend.name === "bwrap" ? 0 : 1)
      expect(await clanka(["exec", "-C", workspace, "-e", "1"], { env })).toEqual({ code: 0, stdout: "", stderr: "" })
      expect(leftover.filter((name) => existsSync(join(tmpdir(), name)))).toEqual([])
    })

    test("writes outside the workspace are refused by the tools and by bash; inside and in the private temporary directory they work", async () => {
      // bubblewrap's /tmp is private; under Landlock the private directory is TMPDIR.
      const tmp = backend.name === "bwrap" ? "/tmp" : "$TMPDIR"
      const script = `
await bash({ command: "touch ../x" }).catch((error) => console.log(error.message))
await bash({ command: "touch ${outside}/y" }).catch((error) => console.log(error.message))
await writeFile({ path: "../z", content: "no" }).catch((error) => console.log(error.message))
await bash({ command: "echo fine > inside.txt && echo scratch > ${tmp}/scratch && cat ${tmp}/scratch" }).then(console.log)`
      const result = await clanka(["exec", "-C", workspace, "-e", script], { env })
      expect(result.stderr).toBe("")
      // The tools name the temporary directory: /tmp, or under Landlock the private one.
      const temp = backend.name === "bwrap" ? "/tmp" : result.stdout.match(/\$TMPDIR \(\/[^)]*\/clanka-sandbox-\d+-\w+\)/)?.[0]
      expect(result.stdout).toBe(
        [
          "bash: exit code 1; output:",
          `touch: cannot touch '../x': ${refused}`,
          writableHint,
          "",
          "bash: exit code 1; output:",
          `touch: cannot touch '${outside}/y': ${refused}`,
          writableHint,
          "",
          `writeFile: ../z resolves to ${root}/z, outside the workspace ${workspace}; the sandbox (workspace-write) allows writes only there, in ${temp} and in --writable DIRs`,
          "scratch",
          "",
          "",
        ].join("\n"),
      )
      expect(existsSync(join(root, "x")) || existsSync(join(outside, "y")) || existsSync(join(root, "z"))).toBe(false)
      expect(readFileSync(join(workspace, "inside.txt"), "utf8")).toBe("fine\n")
      // The sandbox's temporary directory is its own.
      expect(existsSync("/tmp/scratch")).toBe(false)
    })

    test("symlinks, hardlinks, $HOME, the host's /tmp and /dev/shm: no route writes outside", async () => {
      // bubblewrap's /tmp and /dev/shm are the sandbox's own (the write lands there); Landlock refuses them.
      const own = backend.name === "bwrap" ? "WORKED" : "refused"
      const target = join(outside, "target.txt")
      writeFileSync(target, "untouched\n")
      writeFileSync(join(home, ".bashrc"), "untouched\n")
      const script = attempts({
        "write through a symlink": `ln -sf ${target} link && echo x >> link`,
        "write through a hardlink": `ln -f ${target} hard && echo x >> hard`,
        "rename a file in": `mv ${target} moved`,
        "bashrc in HOME": `echo x >> $HOME/.bashrc`,
        "new file in HOME": `echo x > $HOME/new`,
        "the host's /tmp": `echo x > /tmp/clanka-escape-${backend.name}`,
        "the host's /dev/shm": `echo x > /dev/shm/clanka-escape-${backend.name}`,
      })
      const result = await clanka(["exec", "-C", workspace, "-e", script], { env: { ...env, HOME: home } })
      expect(result).toEqual({
        code: 0,
        stdout: [
          "write through a symlink: refused",
          "write through a hardlink: refused",
          "rename a file in: refused",
          "bashrc in HOME: refused",
          "new file in HOME: refused",
          `the host's /tmp: ${own}`,
          `the host's /dev/shm: ${own}`,
          "",
          "",
        ].join("\n"),
        stderr: "",
      })
      expect(readFileSync(target, "utf8")).toBe("untouched\n")
      expect(readFileSync(join(home, ".bashrc"), "utf8")).toBe("untouched\n")
      expect(existsSync(join(home, "new")) || existsSync(`/tmp/clanka-escape-${backend.name}`) || existsSync(`/dev/shm/clanka-escape-${backend.name}`)).toBe(false)
    })

    test("--writable DIR opens another directory to bash and the tools", async () => {
      const script = `await bash({ command: "echo a > ${outside}/a.txt" }); await writeFile({ path: "${outside}/b.txt", content: "b" }); console.log("ok")`
      const result = await clanka(["exec", "-C", workspace, "--writable", outside, "--writable", workspace, "-e", script], { env })
      expect(result).toEqual({ code: 0, stdout: "ok\n", stderr: "" })
      expect(readFileSync(join(outside, "a.txt"), "utf8")).toBe("a\n")
      expect(readFileSync(join(outside, "b.txt"), "utf8")).toBe("b")
    })

    test("--sandbox read-only refuses every write, by the tools and by bash; reads work", async () => {
      const script = `
for (const attempt of [
  () => writeFile({ path: "new.txt", content: "x" }),
  () => removeFile("README.md"),
  () => renameFile({ from: "README.md", to: "R.md" }),
  () => applyPatch("*** Begin Patch\\n*** Add File: p.txt\\n+x\\n*** End Patch"),
  () => bash({ command: "echo x >> README.md" }),
]) await attempt().then(() => console.log("WROTE"), (error) => console.log(error.message.split("\\n")[0]))
console.log(await readFile({ path: "README.md" }))`
      const result = await clanka(["exec", "-C", workspace, "--sandbox", "read-only", "-e", script], { env })
      expect(result.stdout).toBe(
        [
          "writeFile: cannot write new.txt: the sandbox is read-only; run with --sandbox workspace-write to allow writes",
          "removeFile: cannot remove README.md: the sandbox is read-only; run with --sandbox workspace-write to allow writes",
          "renameFile: cannot rename README.md: the sandbox is read-only; run with --sandbox workspace-write to allow writes",
          "applyPatch: cannot write p.txt: the sandbox is read-only; run with --sandbox workspace-write to allow writes; no file was changed",
          "bash: exit code 1; output:",
          "hello",
          "",
          "",
        ].join("\n"),
      )
      expect(readFileSync(join(workspace, "README.md"), "utf8")).toBe("hello\n")
    })

    test("network off: fetch, fetchMarkdown, curl, /dev/tcp and UDP reach no server outside, saying so; --network lets them through", async () => {
      const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("reached") })
      const udp = createSocket("udp4")
      let datagrams = 0
      udp.on("message", () => datagrams++)
      await new Promise<void>((done) => udp.bind(0, "127.0.0.1", done))
      try {
        const url = `http://127.0.0.1:${server.port}/`
        const udpPort = udp.address().port
        const tcp = `exec 3<>/dev/tcp/127.0.0.1/${server.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`
        const script = `await fetchMarkdown(${JSON.stringify(url)}).then(console.log, (error) => console.log(error.message))
await fetch(${JSON.stringify(url)}).then((response) => response.text()).then(console.log, (error) => console.log("fetch failed"))
for (const command of [${JSON.stringify(`curl -sS ${url}`)}, ${JSON.stringify(tcp)}, "echo datagram > /dev/udp/127.0.0.1/${udpPort}"]) {
  await bash({ command }).then((output) => console.log(output.includes("reached") ? "reached" : "sent"), (error) => console.log("failed:", error.message.split("\\n")[1]))
}`
        const off = await clanka(["exec", "-C", workspace, "-e", script], { env })
        expect(off.stdout).toContain(`fetchMarkdown: could not fetch ${url}: `)
        expect(off.stdout).toContain(
          backend.name === "bwrap"
            ? "[sandbox: the network is off (only the sandbox's own loopback works); pass --network to allow it]"
            : "[sandbox: the network is off (loopback too, under Landlock); pass --network to allow it]",
        )
        expect(off.stdout).toContain("fetch failed\n")
        expect(off.stdout).not.toContain("reached")
        // curl and /dev/tcp fail; a datagram goes nowhere (bubblewrap: into the sandbox's own loopback).
        expect(off.stdout).toContain("failed: curl: (7)")
        expect(off.stdout).toMatch(/failed: bash: (connect: Connection refused|socket: Network is unreachable)\n/)
        await Bun.sleep(100)
        expect(datagrams).toBe(0)
        const on = await clanka(["exec", "-C", workspace, "--network", "-e", script], { env })
        expect(on).toEqual({ code: 0, stdout: "reached\nreached\nreached\nreached\nsent\n", stderr: "" })
        await Bun.sleep(100)
        expect(datagrams).toBe(1)
      } finally {
        server.stop(true)
        udp.close()
      }
    })
  })
}
