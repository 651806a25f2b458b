import { describe, expect, test } from "bun:test"
import { OutputCap } from "../../src/util/output-cap.ts"

describe("OutputCap", () => {
  test("passes short output through unchanged", () => {
    const cap = new OutputCap(100)
    cap.push("one\n")
    cap.push("two\n")
    expect(cap.toString()).toBe("one\ntwo\n")
    expect(cap.truncated).toBe(false)
  })

  test("a line of multi-byte characters stays within the limit in bytes", () => {
    for (const char of ["漢", "é", "😀"]) {
      const cap = new OutputCap(1000)
      cap.push(char.repeat(10_000))
      const text = cap.toString()
      expect(text).toContain("of output dropped")
      // The kept text (head and tail) is at most the limit; the marker line adds under 60 bytes.
      expect(Buffer.byteLength(text)).toBeLessThan(1060)
    }
  })

  test("keeps head and tail and says how many lines and bytes were dropped", () => {
    const cap = new OutputCap(40)
    for (let i = 0; i < 100; i++) cap.push(`line ${String(i).padStart(2, "0")}\n`)
    expect(cap.toString()).toBe(
      "line 00\nline 01\n[… 96 lines (768 bytes) of output dropped …]\nline 98\nline 99\n",
    )
    expect(cap.truncated).toBe(true)
  })

  test("accounts for every byte: kept plus dropped equals pushed", () => {
    const cap = new OutputCap(1000)
    let total = 0
    for (let i = 0; i < 5000; i++) {
      const line = `${i} ${"x".repeat(i % 50)}\n`
      total += line.length
      cap.push(line)
    }
    const text = cap.toString()
    const [head, rest] = text.split(/\[… \d+ lines \(\d+ bytes\) of output dropped …\]\n/)
    const dropped = Number(text.match(/\((\d+) bytes\)/)![1])
    expect(head!.length + rest!.length + dropped).toBe(total)
    expect(text.length).toBeLessThan(1100)
  })

  test("memory stays bounded while gigabytes-worth of chunks go through", () => {
    const cap = new OutputCap(64 * 1024)
    const chunk = "y".repeat(1023) + "\n"
    for (let i = 0; i < 200_000; i++) cap.push(chunk) // ~200 MB
    const text = cap.toString()
    expect(text.length).toBeLessThan(70 * 1024)
    expect(text).toContain("lines (")
  })
})

describe("OutputCap and UTF-16", () => {
  test("cuts never split a surrogate pair, so the result is well-formed", () => {
    const cap = new OutputCap(1000)
    cap.push("a" + "😀".repeat(40000))
    const text = cap.toString()
    expect(text.isWellFormed()).toBe(true)
    expect(text).not.toContain("\ufffd")
    expect(text).toContain("of output dropped")
  })

  test("a lone surrogate printed by a script becomes U+FFFD", () => {
    const cap = new OutputCap(1000)
    cap.push("half: " + "👍".slice(0, 1) + "\n")
    expect(cap.toString()).toBe("half: \ufffd\n")
  })
})
