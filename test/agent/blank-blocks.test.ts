// SPEC section 7: empty reasoning or text blocks produce no events; one of only spaces and
// newlines is empty to a reader.
import { afterEach, describe, expect, test } from "bun:test"
import { fakeProviders } from "../support/fake-model.ts"
import { brief, rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

describe.each(fakeProviders)("%s", (provider) => {
  test("whitespace-only text and reasoning blocks produce no events; a block starting with whitespace starts at its text", async () => {
    current = await rig(provider, [
      {
        blocks: [
          { type: "text", text: ["  ", "\n\n "] },
          { type: "reasoning", text: [" ", "\n"] },
          { type: "text", text: ["\n", "Hello", " there"] },
          { type: "execute", script: 'taskComplete("done")' },
        ],
      },
    ])
    const lines = (await current.run("go")).map(brief)
    expect(lines).toEqual([
      "AgentStart",
      "ReasoningStart",
      'ReasoningDelta "\\nHello"',
      'ReasoningDelta " there"',
      "ReasoningEnd",
      "ScriptStart",
      'ScriptDelta "taskComplete(\\"done\\")"',
      "ScriptEnd",
      "Usage",
      'ScriptOutput "(no output)"',
      'AgentFinished "done" turns=1',
    ])
  })
})

test("a whitespace-only text block is not sent back to the model; signed blank reasoning is", async () => {
  current = await rig("anthropic", [
    {
      blocks: [
        { type: "text", text: " \n" },
        { type: "reasoning", text: "\n", signature: "sig-blank" },
        { type: "execute", script: 'console.log("hi")', id: "toolu_1" },
      ],
    },
    { blocks: [{ type: "execute", script: 'taskComplete("done")' }] },
  ])
  await current.run("go")
  expect(current.server.requests[1]!.body.messages[1]).toEqual({
    role: "assistant",
    content: [
      { type: "thinking", thinking: "\n", signature: "sig-blank" },
      { type: "tool_use", id: "toolu_1", name: "execute", input: { script: 'console.log("hi")' } },
    ],
  })
})
