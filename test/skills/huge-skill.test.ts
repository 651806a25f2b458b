// A SKILL.md is the repository's (or a script's: truncate -s 3G): skill(name) reads no more of it
// than the body it gives can hold. Before, the whole file was read: 3 GiB failed with ENOMEM
// after seconds of reading, a smaller one took its size in memory.
import { expect, test } from "bun:test"
import { mkdirSync, truncateSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

test("skill() of a huge SKILL.md gives its body cut, without reading the file whole", async () => {
  const repo = temporaryDirectory("clanka-huge-skill-")
  mkdirSync(join(repo, ".git"))
  mkdirSync(join(repo, ".agents/skills/big"), { recursive: true })
  const skillMd = join(repo, ".agents/skills/big/SKILL.md")
  writeFileSync(skillMd, "---\nname: big\ndescription: A big one.\n---\nStep one-7713.\n")
  truncateSync(skillMd, 3 * 1024 ** 3)
  const script = 'const s = await skill("big"); console.log(s.body.slice(0, 14), s.body.length, s.body.endsWith("readFile the path for the rest]"))'
  const result = await clanka(["exec", "--sandbox", "off", "-C", repo, "-e", script], { timeoutMs: 20_000 })
  expect(result).toEqual({ code: 0, stdout: `Step one-7713. ${256 * 1024 + 59} true\n`, stderr: "" })
})
