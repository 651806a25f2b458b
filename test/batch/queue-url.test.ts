// A --queue URL that is refused is named without its password, however the password is written.
import { expect, test } from "bun:test"
import { clanka } from "../support/cli.ts"

test("a refused --queue URL never shows its password, even one holding / or @", async () => {
  const cases = [
    ["redis://:pa/ss@host/q", "redis://:…@host/q", "not a URL"],
    ["redis://user:p@ss@host/bad name", "redis://user:…@host/bad name", 'the queue name "bad name" may hold only letters, digits, _ . and -'],
    ["http://user:s3/cr@t@x/q", "http://user:…@x/q", "not a URL"],
  ]
  for (const [url, shown, problem] of cases) {
    const result = await clanka(["worker", "--queue", url!])
    expect(result).toEqual({ code: 2, stdout: "", stderr: `clanka: --queue ${JSON.stringify(shown)}: ${problem}; give redis://HOST:PORT/NAME\n` })
  }
})
