// End to end over a real sshd on loopback: `clanka exec --ssh` and `clanka tool --ssh` work on a
// directory on the "remote" side, and every way ssh fails ends with exit 3 and one line.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { spawn } from "node:child_process"
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, MAIN, sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"

const available = sshdAvailable()
let host: SshProject

beforeAll(async () => {
  if (available) host = await startSshProject("clanka-ssh-local-", { "README.md": "remote readme\n", "src/main.ts": "export {}\n" })
})

afterAll(async () => {
  if (available) await host.stop()
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function clanka(
  args: string[],
  env: Record<string, string> = {},
  onStdout?: (text: string, pid: number) => void,
): Promise<Run> {
  return new Promise((done) => {
    // A process group of its own, like a job in a terminal, so a test can send it Ctrl-C.
    const child = spawn(BUN, [MAIN, ...args], { cwd: host.local, env: { ...process.env, ...host.env, ...env }, detached: true })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
      onStdout?.(String(chunk), child.pid!)
    })
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => done({ code, stdout, stderr }))
  })
}

test.skipIf(!available)("clanka exec --ssh HOST:DIR runs the script in DIR on the far side", async () => {
  const result = await clanka([
    "exec",
    "--ssh",
    host.target,
    "--remote-bin",
    host.remoteBin,
    "-e",
    'console.log(await ls(".")); console.log(await readFile({ path: "README.md" }))',
  ])
  expect(result).toEqual({ code: 0, stdout: "[ 'README.md', 'src/' ]\nremote readme\n\n", stderr: "" })
})

test.skipIf(!available)("clanka exec --ssh passes the sandbox along: the far side's executor runs in its own bubblewrap", async () => {
  const script = `await writeFile({ path: "x.txt", content: "x" }).catch((error) => console.log(error.message))
await bash({ command: "ls /proc | grep -c '^[0-9]'" }).then((out) => console.log(Number(out.match(/^\\d+$/m)?.[0]) < 10 ? "own pid namespace" : "host pids"))`
  const readOnly = await clanka(["exec", "--ssh", host.target, "--remote-bin", host.remoteBin, "--sandbox", "read-only", "-e", script])
  expect(readOnly).toEqual({
    code: 0,
    stdout: "writeFile: cannot write x.txt: the sandbox is read-only; run with --sandbox workspace-write to allow writes\nown pid namespace\n",
    stderr: "",
  })
  expect(existsSync(join(host.remoteDir, "x.txt"))).toBe(false)
  // The default asks the far side for `auto`: workspace-write there, since it has bubblewrap.
  const byDefault = await clanka(["exec", "--ssh", host.target, "--remote-bin", host.remoteBin, "-e", script])
  expect(byDefault).toEqual({ code: 0, stdout: "own pid namespace\n", stderr: "" })
  expect(readFileSync(join(host.remoteDir, "x.txt"), "utf8")).toBe("x")
  rmSync(join(host.remoteDir, "x.txt"))
})

test.skipIf(!available)("clanka tool --ssh calls one tool on the far side; CLANKA_REMOTE_BIN names the binary", async () => {
  const result = await clanka(["tool", "--ssh", host.target, "readFile", '{"path":"src/main.ts"}'], {
    CLANKA_REMOTE_BIN: host.remoteBin,
  })
  expect(result).toEqual({ code: 0, stdout: '"export {}\\n"\n', stderr: "" })
  const written = await clanka(
    ["tool", "--ssh", host.target, "writeFile", '{"path":"notes/todo.txt","content":"from afar"}'],
    { CLANKA_REMOTE_BIN: host.remoteBin },
  )
  expect(written).toEqual({ code: 0, stdout: "null\n", stderr: "" })
  expect(readFileSync(join(host.remoteDir, "notes/todo.txt"), "utf8")).toBe("from afar")
})

test.skipIf(!available)("a script that throws on the far side exits 1 with its error", async () => {
  const result = await clanka(["exec", "--ssh", host.target, "--remote-bin", host.remoteBin, "-e", 'throw new Error("remote boom")'])
  expect(result.code).toBe(1)
  // stdout is what the script printed: nothing; the far side's report is marked and kept off it.
  expect(result.stdout).toBe("")
  expect(result.stderr).toBe("clanka: the script failed: Error: remote boom (line 1)\n")
})

test.skipIf(!available)("ssh that cannot connect: exit 3 and ssh's own line", async () => {
  const result = await clanka(["exec", "--ssh", `${host.downAlias}:/tmp`, "-e", "console.log(1)"])
  expect(result.code).toBe(3)
  expect(result.stdout).toBe("")
  expect(result.stderr).toMatch(
    new RegExp(
      `^clanka: cannot connect to ${host.downAlias} with ssh: ssh: connect to host 127\\.0\\.0\\.1 port \\d+: Connection refused; check that \`ssh ${host.downAlias}\` works\\n$`,
    ),
  )
})

test.skipIf(!available)("no ssh on this machine: exit 3 and one line saying so", async () => {
  const result = await clanka(["exec", "--ssh", `${host.alias}:/tmp`, "-e", "console.log(1)"], { PATH: "/nonexistent" })
  expect(result).toEqual({ code: 3, stdout: "", stderr: "clanka: cannot run ssh: not found; install it or check PATH\n" })
})

test.skipIf(!available)("clanka missing on the host: exit 3, install it or pass --remote-bin", async () => {
  const result = await clanka(["tool", "--ssh", `${host.alias}:/tmp`, "--remote-bin", "/opt/nowhere/clanka", "ls", "."])
  expect(result).toEqual({
    code: 3,
    stdout: "",
    stderr:
      "clanka: `/opt/nowhere/clanka` was not found on clanka-test-host; install clanka there or pass --remote-bin PATH (or set CLANKA_REMOTE_BIN)\n",
  })
})

test.skipIf(!available)("a host that prints a banner on stdout: exit 3 naming the line and where it comes from", async () => {
  const chatty = join(host.dir, "chatty-clanka")
  writeFileSync(chatty, `#!/bin/sh\necho "Welcome to the build box"\nexec '${host.remoteBin}' "$@"\n`)
  chmodSync(chatty, 0o755)
  const result = await clanka(["exec", "--ssh", host.target, "--remote-bin", chatty, "-e", "console.log(1)"])
  expect(result).toEqual({
    code: 3,
    stdout: "",
    stderr: `clanka: the executor on clanka-test-host wrote something that is not protocol: "Welcome to the build box"; check that nothing in the login files on clanka-test-host prints to stdout and that \`${chatty} executor\` runs clanka\n`,
  })
})

test.skipIf(!available)("killing the far side in the middle of a long execute ends the client with exit 3 within a second", async () => {
  let killedAt = 0
  const result = await clanka(
    ["exec", "--ssh", host.target, "--remote-bin", host.remoteBin, "-e", 'console.log("working"); await sleep(60000)'],
    {},
    () => {
      if (killedAt) return
      killedAt = Date.now()
      host.killRemote()
    },
  )
  expect(Date.now() - killedAt).toBeLessThan(1000)
  expect(result.code).toBe(3)
  expect(result.stdout).toBe("working\n")
  expect(result.stderr).toBe("clanka: lost the ssh connection to clanka-test-host; check the link and run again\n")
})

test.skipIf(!available)("Ctrl-C reaching both clanka and ssh is an interruption (exit 130), not a lost executor", async () => {
  let interrupted = false
  const result = await clanka(
    ["exec", "--ssh", host.target, "--remote-bin", host.remoteBin, "-e", 'console.log("working"); await sleep(60000)'],
    {},
    (_text, pid) => {
      if (interrupted) return
      interrupted = true
      process.kill(-pid, "SIGINT") // the whole job, as the terminal does
    },
  )
  expect(result).toEqual({ code: 130, stdout: "working\n", stderr: "" })
})
