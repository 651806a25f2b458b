import { afterEach, expect, test } from "bun:test"
import { join } from "node:path"
import { BUN, MAIN } from "../support/cli.ts"
import { startFakeModel, type FakeServer } from "../support/fake-model.ts"
import { findProcess, ownSleep } from "../support/processes.ts"
import { temporaryDirectory } from "../support/temp.ts"

// `clanka … | head -1`: the reader leaves early. clanka must stop quietly — no stack trace, no
// hang — with the interrupted exit code, and kill what the script started.
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function pipeToHead(args: string[], env: Record<string, string> = {}) {
  const directory = temporaryDirectory("clanka-pipe-")
  const command = [BUN, MAIN, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(" ")
  const child = Bun.spawn(["bash", "-c", `${command} 2>stderr.txt | head -1; echo "exit=\${PIPESTATUS[0]}"`], {
    cwd: directory,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdout: "pipe",
    timeout: 20_000,
  })
  const stdout = await new Response(child.stdout).text()
  await child.exited
  return { stdout, stderr: await Bun.file(join(directory, "stderr.txt")).text(), directory }
}

test("clanka exec whose reader leaves stops at once, quietly, and kills what the script started", async () => {
  const seconds = ownSleep("30.31")
  const script = `await bash({ command: "sleep ${seconds} & echo $! > bg.pid" }); for (let i = 0; ; i++) console.log(i)`
  const started = Date.now()
  const { stdout, stderr, directory } = await pipeToHead(["exec", "-e", script])
  expect(Date.now() - started).toBeLessThan(10_000)
  expect(stdout).toBe("0\nexit=130\n")
  expect(stderr).toBe("")
  expect(Number(await Bun.file(join(directory, "bg.pid")).text())).toBeGreaterThan(0)
  expect(findProcess(["sleep", seconds])).toBeUndefined()
})

test("clanka run --json whose reader leaves stops quietly: exit 130, nothing on stderr", async () => {
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: "for (let i = 0; i < 50000; i++) console.log(i)" }] },
    { blocks: [{ type: "execute", script: "for (let i = 0; i < 50000; i++) console.log(i)" }] },
    { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] },
  ])
  const { stdout, stderr } = await pipeToHead(["run", "--json", "-m", "anthropic/claude-sonnet-4-5", "go"], server.env)
  expect(JSON.parse(stdout.split("\n")[0]!)._tag).toBe("AgentStart")
  expect(stdout.split("\n").slice(1)).toEqual(["exit=130", ""])
  expect(stderr).toBe("")
})

test("clanka run -o pretty whose reader leaves stops quietly too", async () => {
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: "for (let i = 0; i < 50000; i++) console.log(i)" }] },
    { blocks: [{ type: "execute", script: "for (let i = 0; i < 50000; i++) console.log(i)" }] },
    { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] },
  ])
  const { stdout, stderr } = await pipeToHead(["run", "-o", "pretty", "-m", "anthropic/claude-sonnet-4-5", "go"], server.env)
  expect(stdout).toStartWith("● anthropic/claude-sonnet-4-5 in ")
  expect(stdout.split("\n").slice(1)).toEqual(["exit=130", ""])
  expect(stderr).toBe("")
})

test("a closed stderr does not turn a finished run into a failure", async () => {
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: 'console.log("x"); await taskComplete("done")' }] }])
  const directory = temporaryDirectory("clanka-pipe-")
  const child = Bun.spawn([BUN, MAIN, "run", "-o", "text", "-m", "anthropic/claude-sonnet-4-5", "go"], {
    cwd: directory,
    env: { ...process.env, ...server.env },
    stdout: "pipe",
    stderr: "pipe",
  })
  child.stderr.cancel() // the reader of stderr leaves at once
  const stdout = await new Response(child.stdout).text()
  expect(await child.exited).toBe(0)
  expect(stdout).toBe("done\n")
})

test("clanka run into a non-blocking pipe that a slow reader drains writes every line, in order", async () => {
  // A descriptor another process made non-blocking (a terminal or pipe it shares): writes find it
  // full and must wait for room, not take it for a reader that left.
  const lines = 20_000
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: `for (let i = 0; i < ${lines}; i++) console.log("line " + i)` }] },
    { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] },
  ])
  const directory = temporaryDirectory("clanka-nonblocking-")
  const nonBlocking = `use Fcntl; my $flags = fcntl(STDOUT, F_GETFL, 0); fcntl(STDOUT, F_SETFL, $flags | O_NONBLOCK) or die; exec @ARGV or die`
  const child = Bun.spawn(["bash", "-c", `perl -e '${nonBlocking}' "$@" | (sleep 1; cat)`, "bash", BUN, MAIN, "run", "--json", "-m", "anthropic/claude-sonnet-4-5", "go"], {
    cwd: directory,
    env: { ...process.env, NO_COLOR: "1", ...server.env },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" })
  const events = stdout.trim().split("\n").map((line) => JSON.parse(line) as { _tag: string; output?: string })
  expect(events.at(-1)?._tag).toBe("AgentFinished")
  const output = events.filter((event) => event._tag === "ScriptOutput").map((event) => event.output ?? "")[0]!
  expect(output.split("\n").slice(0, 3)).toEqual(["line 0", "line 1", "line 2"])
})
