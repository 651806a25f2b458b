import { expect, test } from "bun:test"
import { ScriptDecoder } from "../../src/agent/script-decoder.ts"

const script = 'const s = "quote \\" and `tick` ${x}"\nconsole.log(s, "\t", "é😀\u0001")\n'

test("deltas decoded from any split of the JSON concatenate to the exact script", () => {
  const json = JSON.stringify({ script })
  for (let size = 1; size <= 7; size++) {
    const decoder = new ScriptDecoder()
    let out = ""
    for (let i = 0; i < json.length; i += size) out += decoder.push(json.slice(i, i + size))
    expect(out).toBe(script)
  }
})

test("escaped unicode and surrogate pairs split across chunks never yield half a character", () => {
  const json = '{"script": "a\\ud83d\\ude00b\\u00e9"}'
  const decoder = new ScriptDecoder()
  const deltas: string[] = []
  for (const char of json) deltas.push(decoder.push(char))
  expect(deltas.join("")).toBe("a😀bé")
  expect(deltas.filter(Boolean)).toEqual(["a", "😀", "b", "é"])
})

test("text before the script key and after the string is ignored", () => {
  const decoder = new ScriptDecoder()
  expect(decoder.push('{ "script" : ')).toBe("")
  expect(decoder.push('"x = 1"')).toBe("x = 1")
  expect(decoder.push(', "other": "no"}')).toBe("")
  expect(decoder.decoded).toBe("x = 1")
})
