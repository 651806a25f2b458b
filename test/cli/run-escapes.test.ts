import { afterEach, expect, test } from "bun:test"
import { clanka } from "../support/cli.ts"
import { startFakeModel, type FakeServer } from "../support/fake-model.ts"

let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

test("an error message from the model's server cannot drive the terminal", async () => {
  server = await startFakeModel("anthropic", [{ error: { status: 400, message: "bad\u001b[2J\u001b]0;title\u0007 request" } }])
  const result = await clanka(["run", "-o", "text", "-m", "anthropic/claude-sonnet-4-5", "hi"], { env: server.env })
  expect(result.code).toBe(1)
  expect(result.stderr).not.toContain("\u001b")
  expect(result.stderr).toContain("bad^[[2J^[]0;title^G request")
})
