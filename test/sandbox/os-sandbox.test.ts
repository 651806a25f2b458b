// The OS sandbox, tried as a hostile script would: with the real bubblewrap, through the real CLI.
// A script cannot print the agent's key by any route, cannot write outside the workspace, and
// cannot reach a server outside the sandbox unless --network is given.
import { afterAll, describe, expect, test } from "bun:test"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { osSandboxWorks } from "../../src/executor/os-sandbox.ts"
import { clanka } from "../support/cli.ts"
import { findProcess } from "../support/processes.ts"
import { startFakeModel } from "../support/fake-model.ts"

/**
 * bubblewrap is what the default runs in. Under CI a missing or unusable bwrap is an error, not a
 * skip: .ci/run installs it, and a silently skipped sandbox test proves nothing.
 */
const available = osSandboxWorks()
if (!available && process.env.CI) throw new Error("bwrap is missing or cannot create namespaces; .ci/run installs bubblewrap")

// Outside /tmp, whose sandbox copy is private: the workspace's parent is really outside.
const root = mkdtempSync("/var/tmp/clanka-os-sandbox-")
const workspace = join(root, "app")
const outside = join(root, "outside")
mkdirSync(workspace)
mkdirSync(outside)
writeFileSync(join(workspace, "README.md"), "hello\n")
afterAll(() => rmSync(root, { recursive: true, force: true }))

const SECRET = "sk-ant-clanka-secret-4242"

/** Every route a script has to the agent's environment; each prints what it found. */
const EXFILTRATE = `
const tries = {
  env: () => bash({ command: "env" }),
  procEnviron: () => bash({ command: "cat /proc/*/environ 2>/dev/null | tr '\\\\0' '\\\\n'" }),
  parentEnviron: () => bash({ command: "cat /proc/$PPID/environ /proc/1/environ 2>/dev/null | tr '\\\\0' '\\\\n'" }),
  ps: () => bash({ command: "ps e -ww -A 2>&1 || true" }),
  procCmdline: () => bash({ command: "cat /proc/*/cmdline 2>/dev/null | tr '\\\\0' ' '" }),
  realmGlobal: () => globalThis.constructor.constructor("return JSON.stringify(process.env)")(),
  realmConsole: () => console.log.constructor("return JSON.stringify(process.env)")(),
  realmPromise: () => readFile({ path: "README.md" }).constructor.constructor("return JSON.stringify(process.env)")(),
}
for (const [name, attempt] of Object.entries(tries)) {
  try { console.log(name, String(await attempt())) } catch (error) { console.log(name, "failed:", error.message) }
}`

describe.skipIf(!available)("the OS sandbox (bubblewrap)", () => {
  test("a script under clanka run cannot print the agent's key: env, /proc/*/environ, ps e, realm escapes", async () => {
    const server = await startFakeModel("anthropic", [
      { blocks: [{ type: "execute", script: EXFILTRATE }] },
      { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] },
    ])
    try {
      const env = { ...server.env, ANTHROPIC_API_KEY: SECRET, OPENAI_API_KEY: SECRET, EXA_API_KEY: SECRET, GITHUB_TOKEN: SECRET }
      const result = await clanka(["run", "--json", "-C", workspace, "-m", "anthropic/claude-sonnet-4-5", "look around"], { env })
      expect(result.code).toBe(0)
      const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
      expect(events[0]).toMatchObject({ _tag: "AgentStart", sandbox: { mode: "workspace-write", network: false } })
      const output = events.find((event) => event._tag === "ScriptOutput").output as string
      // Every route ran, and none found the key.
      for (const name of ["env", "procEnviron", "parentEnviron", "ps", "procCmdline", "realmGlobal", "realmConsole", "realmPromise"]) {
        expect(output).toContain(`${name} `)
      }
      expect(output).not.toContain(SECRET)
      expect(result.stderr).not.toContain(SECRET)
      // The model's request carried it, so it was there to steal.
      expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`)
    } finally {
      await server.close()
    }
  })

  test("every process a script starts, setsid or double-forked, is gone when the run ends", async () => {
    // Inside the sandbox's pid namespace $$ is not this machine's pid: the sleepers are found by
    // command lines no other process uses.
    const command = "setsid sleep 207.11 >/dev/null 2>&1 & (sh -c 'exec sleep 207.12' >/dev/null 2>&1 &); sleep 0.3; ps -A -o args= | grep -c '^sleep 207.1'"
    const server = await startFakeModel("anthropic", [
      { blocks: [{ type: "execute", script: `console.log("running:", (await bash({ command: ${JSON.stringify(command)} })).trim())` }] },
      { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] },
    ])
    try {
      const result = await clanka(["run", "--json", "-C", workspace, "-m", "anthropic/claude-sonnet-4-5", "start sleepers"], { env: server.env })
      expect(result.code).toBe(0)
      const output = result.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line)).find((event) => event._tag === "ScriptOutput").output
      expect(output).toBe("running: 2\n")
      let left = true
      for (let i = 0; i < 100 && left; i++) {
        left = Boolean(findProcess(["sleep", "207.11"]) || findProcess(["sleep", "207.12"]))
        if (left) await Bun.sleep(20)
      }
      expect(left).toBe(false)
    } finally {
      await server.close()
    }
  })

  test("writes outside the workspace are refused by the tools and by bash; inside they work", async () => {
    const script = `
await bash({ command: "touch ../x" }).catch((error) => console.log(error.message))
await bash({ command: "touch ${outside}/y" }).catch((error) => console.log(error.message))
await writeFile({ path: "../z", content: "no" }).catch((error) => console.log(error.message))
await bash({ command: "echo fine > inside.txt && echo scratch > /tmp/scratch && cat /tmp/scratch" }).then(console.log)`
    const result = await clanka(["exec", "-C", workspace, "-e", script])
    expect(result.stderr).toBe("")
    expect(result.stdout).toBe(
      [
        "bash: exit code 1; output:",
        "touch: cannot touch '../x': Read-only file system",
        "[sandbox: only the workspace, /tmp and --writable DIRs are writable (--sandbox workspace-write); pass --writable DIR, or --sandbox off]",
        "",
        "bash: exit code 1; output:",
        `touch: cannot touch '${outside}/y': Read-only file system`,
        "[sandbox: only the workspace, /tmp and --writable DIRs are writable (--sandbox workspace-write); pass --writable DIR, or --sandbox off]",
        "",
        `writeFile: ../z resolves to ${root}/z, outside the workspace ${workspace}; the sandbox (workspace-write) allows writes only there, in /tmp and in --writable DIRs`,
        "scratch",
        "",
        "",
      ].join("\n"),
    )
    expect(existsSync(join(root, "x")) || existsSync(join(outside, "y")) || existsSync(join(root, "z"))).toBe(false)
    expect(readFileSync(join(workspace, "inside.txt"), "utf8")).toBe("fine\n")
    // The sandbox's /tmp is its own.
    expect(existsSync("/tmp/scratch")).toBe(false)
  })

  test("--writable DIR opens another directory to bash and the tools", async () => {
    const script = `await bash({ command: "echo a > ${outside}/a.txt" }); await writeFile({ path: "${outside}/b.txt", content: "b" }); console.log("ok")`
    const result = await clanka(["exec", "-C", workspace, "--writable", outside, "--writable", workspace, "-e", script])
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
    const result = await clanka(["exec", "-C", workspace, "--sandbox", "read-only", "-e", script])
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

  test("network off: fetch of a server outside the sandbox fails, saying so; --network lets it through", async () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("reached") })
    try {
      const url = `http://127.0.0.1:${server.port}/`
      const script = `await fetchMarkdown(${JSON.stringify(url)}).then(console.log, (error) => console.log(error.message))
await fetch(${JSON.stringify(url)}).then((response) => response.text()).then(console.log, (error) => console.log("fetch failed"))`
      const off = await clanka(["exec", "-C", workspace, "-e", script])
      expect(off.stdout).toContain(`fetchMarkdown: could not fetch ${url}: `)
      expect(off.stdout).toContain("[sandbox: the network is off (only the sandbox's own loopback works); pass --network to allow it]")
      expect(off.stdout).toEndWith("fetch failed\n")
      expect(off.stdout).not.toContain("reached")
      const on = await clanka(["exec", "-C", workspace, "--network", "-e", script])
      expect(on).toEqual({ code: 0, stdout: "reached\nreached\n", stderr: "" })
    } finally {
      server.stop(true)
    }
  })
})

test("without bubblewrap the default warns once and runs; an explicit mode is exit 2", async () => {
  const env = { CLANKA_BWRAP: "/nonexistent/bwrap" }
  const fallback = await clanka(["exec", "-C", workspace, "-e", 'console.log("ran")'], { env })
  expect(fallback.code).toBe(0)
  expect(fallback.stdout).toBe("ran\n")
  expect(fallback.stderr).toBe(
    "clanka: bubblewrap (/nonexistent/bwrap) is not available or cannot create namespaces here, so scripts run without the OS sandbox; install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap), or pass --sandbox off to say this is intended\n",
  )
  const explicit = await clanka(["exec", "-C", workspace, "--sandbox", "workspace-write", "-e", "1"], { env })
  expect(explicit).toEqual({
    code: 2,
    stdout: "",
    stderr:
      "clanka: --sandbox workspace-write needs the OS sandbox, but bubblewrap (/nonexistent/bwrap) is not available or cannot create namespaces here; install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap), or pass --sandbox off\n",
  })
  expect(await clanka(["exec", "-C", workspace, "--sandbox", "off", "-e", 'console.log("ran")'], { env })).toEqual({ code: 0, stdout: "ran\n", stderr: "" })
  expect((await clanka(["exec", "--sandbox", "closed", "-e", "1"])).stderr).toBe(
    'clanka: --sandbox takes workspace-write, read-only, off or auto, got "closed"\n',
  )
})

test("bubblewrap that cannot create namespaces: the default falls back with one line; an explicit mode is exit 2", async () => {
  const fake = join(root, "bwrap")
  writeFileSync(fake, "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n")
  chmodSync(fake, 0o755)
  const env = { CLANKA_BWRAP: fake }
  const fallback = await clanka(["exec", "-C", workspace, "-e", 'console.log("ran")'], { env })
  expect(fallback).toEqual({
    code: 0,
    stdout: "ran\n",
    stderr: `clanka: bubblewrap (${fake}) cannot run here (No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces), so scripts run without the OS sandbox; install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap), or pass --sandbox off to say this is intended\n`,
  })
  const explicit = await clanka(["exec", "-C", workspace, "--sandbox", "read-only", "-e", "1"], { env })
  expect(explicit.code).toBe(2)
  expect(explicit.stderr).toStartWith(`clanka: --sandbox read-only needs the OS sandbox, but bubblewrap (${fake}) cannot run here (No permissions`)
})
