import { expect, test } from "bun:test"
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { brokenLinks, slug } from "../support/markdown-links.ts"
import { ROOT } from "../support/cli.ts"

const docs = () => [
  "README.md",
  "BENCHMARKS.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
]

test("every relative link in README.md, BENCHMARKS.md and docs/ resolves to a file and heading", () => {
  const broken = brokenLinks(ROOT, docs()).map((b) => `${b.file}:${b.line}: ${b.target}: ${b.reason}`)
  expect(broken).toEqual([])
})

test("README.md links to every page of docs/ and to BENCHMARKS.md", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8")
  expect(docs().filter((page) => page !== "README.md" && !readme.includes(`](${page})`))).toEqual([])
})

test("headings get GitHub's anchors", () => {
  expect(slug("Serving: clanka executor")).toBe("serving-clanka-executor")
  expect(slug("The OS sandbox (bubblewrap)")).toBe("the-os-sandbox-bubblewrap")
  expect(slug("Hand-written where a library exists")).toBe("hand-written-where-a-library-exists")
})

test("a missing file, a missing heading and a link out of the repository are reported; code is not", () => {
  const root = mkdtempSync(join(tmpdir(), "clanka-links-"))
  try {
    mkdirSync(join(root, "docs"))
    writeFileSync(join(root, "docs/a.md"), "# A page\n\n## Twice\n\n## Twice\n")
    writeFileSync(
      join(root, "README.md"),
      [
        "# Top",
        "[ok](docs/a.md) [ok](docs/a.md#a-page) [ok](docs/a.md#twice-1) [ok](#top) [web](https://x.test/#nope)",
        "[gone](docs/b.md)",
        "[no heading](docs/a.md#nope)",
        "[here](#nowhere)",
        "[out](../x.md)",
        "`[in code](docs/b.md)`",
        "```",
        "[in a fence](docs/b.md)",
        "```",
        "[ref]: docs/c.md",
      ].join("\n"),
    )
    expect(brokenLinks(root, ["README.md"]).map((b) => `${b.line} ${b.target}: ${b.reason}`)).toEqual([
      "3 docs/b.md: no such file: docs/b.md",
      "4 docs/a.md#nope: no heading #nope in docs/a.md",
      "5 #nowhere: no heading #nowhere in README.md",
      "6 ../x.md: points outside the repository",
      "11 docs/c.md: no such file: docs/c.md",
    ])
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})
