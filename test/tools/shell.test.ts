import { afterAll, beforeEach, describe, expect, test } from "bun:test"
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtinRegistry, callTool } from "../../src/tools/registry.ts"
import type { ToolContext } from "../../src/tools/tool.ts"
import { toolContext } from "../support/tool-context.ts"

const dir = mkdtempSync(join(tmpdir(), "clanka-shell-"))
let controller: AbortController
let ctx: ToolContext

beforeEach(() => {
  controller = new AbortController()
  ctx = toolContext(dir, { signal: controller.signal })
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const bash = (command: string, timeoutMs?: number) => callTool("bash", { command, timeoutMs }, ctx)

/** Running, not merely a zombie waiting for its (re)parent to reap it. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

describe("bash", () => {
  test("runs in the directory with stdin from /dev/null", async () => {
    expect(await bash("pwd; cat; echo done")).toBe(`${dir}\ndone\n`)
  })

  test("interleaves stdout and stderr in the order they were written", async () => {
    expect(await bash("echo 1; echo 2 >&2; echo 3; echo 4 >&2; printf 5")).toBe("1\n2\n3\n4\n5")
  })

  test("keeps bash's line numbers in error messages", async () => {
    expect(await bash("true\nnosuchcommand-xyz || true")).toBe("bash: line 2: nosuchcommand-xyz: command not found\n")
  })

  test("a non-zero exit rejects with the exit code and the output", async () => {
    await expect(bash("echo out; echo err >&2; exit 3")).rejects.toThrow("bash: exit code 3; output:\nout\nerr\n")
    await expect(bash("exit 1")).rejects.toThrow("bash: exit code 1 (no output)")
  })

  test("a syntax error is reported with bash's message", async () => {
    await expect(bash("if then")).rejects.toThrow(/^bash: exit code 2; output:\nbash: -c: line 1: syntax error/)
  })

  test("times out with the output so far and kills the command", async () => {
    const started = Date.now()
    await expect(bash("echo partial; sleep 30", 300)).rejects.toThrow("bash: timed out after 0.3 s; output so far:\npartial\n")
    expect(Date.now() - started).toBeLessThan(3000)
    expect(ctx.processes.size).toBe(0)
  })

  test("rejects a timeout above the maximum", async () => {
    await expect(bash("true", 300_000)).rejects.toThrow("bash: invalid parameters: timeoutMs: timeoutMs can be at most 240000 (4 minutes)")
  })

  test("aborting the signal kills the whole process group, grandchildren included", async () => {
    const pidFile = join(dir, "pids")
    const run = bash(`sleep 100 & echo $! > ${pidFile}; sleep 100 & echo $! >> ${pidFile}; wait`)
    let pids: number[] = []
    for (let i = 0; i < 200 && pids.length < 2; i++) {
      await Bun.sleep(10)
      pids = (await Bun.file(pidFile).text().catch(() => "")).split("\n").filter(Boolean).map(Number)
    }
    expect(pids.length).toBe(2)
    expect(pids.every(alive)).toBe(true)
    controller.abort()
    await expect(run).rejects.toThrow("bash: cancelled")
    await Bun.sleep(50)
    expect(pids.filter(alive)).toEqual([])
  })

  test("an already aborted signal runs nothing", async () => {
    controller.abort()
    await expect(bash(`touch ${join(dir, "never")}`)).rejects.toThrow("bash: cancelled")
    expect(await Bun.file(join(dir, "never")).exists()).toBe(false)
  })

  test("does not wait for a background job that keeps the output pipe open", async () => {
    const started = Date.now()
    expect(await bash("sleep 5 & echo started")).toBe("started\n")
    expect(Date.now() - started).toBeLessThan(2000)
  })

  test("keeps the head and tail of huge output", async () => {
    const out = (await bash("head -c 3000000 /dev/zero | tr '\\0' a; echo; echo END")) as string
    expect(out.length).toBeLessThan(2_200_000)
    expect(out).toMatch(/^a{1000}/)
    // The one model-facing cap: the cut moves to line ends, and the marker says what was dropped.
    expect(out).toMatch(/^a+\n\[… 1 lines \(\d+ bytes\) of output dropped …\]\nEND\n$/)
  })
})

describe("gh", () => {
  test("runs gh with the arguments through bash", async () => {
    const bin = join(dir, "bin")
    mkdirSync(bin, { recursive: true })
    writeFileSync(join(bin, "gh"), '#!/bin/sh\nprintf "gh[%s]" "$@"; echo " prompt=$GH_PROMPT_DISABLED"\n')
    chmodSync(join(bin, "gh"), 0o755)
    const saved = process.env.PATH
    process.env.PATH = `${bin}:${saved}`
    try {
      expect(await callTool("gh", 'pr view 12 --json "title,body"', ctx)).toBe("gh[pr]gh[view]gh[12]gh[--json]gh[title,body] prompt=1\n")
    } finally {
      process.env.PATH = saved
    }
  })

  test("an array of arguments reaches gh as it is, never parsed by a shell", async () => {
    const bin = join(dir, "bin")
    mkdirSync(bin, { recursive: true })
    writeFileSync(join(bin, "gh"), '#!/bin/sh\nprintf "gh[%s]" "$@"; echo " prompt=$GH_PROMPT_DISABLED"\n')
    chmodSync(join(bin, "gh"), 0o755)
    const saved = process.env.PATH
    process.env.PATH = `${bin}:${saved}`
    try {
      const args = ["issue", "create", "--title", "it's $HOME; `id` > x", "--body", ""]
      expect(await callTool("gh", args, ctx)).toBe("gh[issue]gh[create]gh[--title]gh[it's $HOME; `id` > x]gh[--body]gh[] prompt=1\n")
    } finally {
      process.env.PATH = saved
    }
  })

  test("the model sees gh(args: string | string[])", () => {
    expect(builtinRegistry().dts).toContain("declare function gh(args: string | string[]): Promise<string>")
  })

  test("says so in one line when gh is not installed", async () => {
    const saved = process.env.PATH
    process.env.PATH = join(dir, "empty")
    try {
      await expect(callTool("gh", "pr list", ctx)).rejects.toThrow(
        "gh: the GitHub CLI (gh) is not installed on this machine; use bash with git or curl instead",
      )
    } finally {
      process.env.PATH = saved
    }
  })
})
