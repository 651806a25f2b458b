import { describe, expect, test } from "bun:test"
import { templateSource } from "../../src/sandbox/template-text.ts"

/** The text a template with this source evaluates to. */
const value = (source: string, scope: Record<string, unknown> = {}): string =>
  new Function(...Object.keys(scope), `return \`${source}\``)(...Object.values(scope))

describe("templateSource", () => {
  test("bare backticks and ${ become literal text", () => {
    const text = "Run `npm test` with ${NODE}\nand `make`"
    expect(value(templateSource(text))).toBe(text)
  })

  test("backslashes before a backtick or ${ were the model escaping it: one or two, the text gets the character", () => {
    expect(value(templateSource("a \\`b\\` c\n\\\\`d\\\\` \\${e} \\\\${f}"))).toBe("a `b` c\n`d` ${e} ${f}")
    expect(value(templateSource("a \\`b\\` and \\\\`c\\\\`"))).toBe("a `b` and `c`")
  })

  test("in a template of several lines every other backslash is the text's own", () => {
    const code = 'split("\\n")\n/\\s+\\d/\nprintf \'%s\\t\' \\\n  "\\"q\\"" C:\\\\x \\1 \\x4 \\u{110000}\n'
    expect(value(templateSource(code))).toBe(code)
  })

  test("a template on one line is written like a string: its escapes are escapes, other backslashes text", () => {
    expect(value(templateSource("# T\\n\\n\\tsay \\\"hi\\\" \\\\ \\x41\\u00e9 `x`"))).toBe('# T\n\n\tsay "hi" \\ Aé `x`')
    expect(value(templateSource("match \\d+ in C:\\Users \\1 \\x4 \\u{110000} \\01"))).toBe("match \\d+ in C:\\Users \\1 \\x4 \\u{110000} \\01")
  })

  test("an interpolation stays only when the caller keeps it", () => {
    const keep = (expression: string) => expression.startsWith("files")
    const source = templateSource("${files.length} files, ${name} and ${ {a: 1}.a }\n", keep)
    expect(value(source, { files: [1, 2], name: "n" })).toBe("2 files, ${name} and ${ {a: 1}.a }\n")
  })
})
