import { expect, test } from "bun:test"
import { UsageError } from "../../src/errors.ts"
import { connectExecutor } from "../../src/executor/connect.ts"
import { parseSshTarget, shellQuote } from "../../src/executor/ssh-target.ts"

test("--ssh takes [USER@]HOST[:DIR]", () => {
  expect(parseSshTarget("box")).toEqual({ host: "box", directory: undefined })
  expect(parseSshTarget("deploy@box:/srv/app")).toEqual({ host: "deploy@box", directory: "/srv/app" })
  expect(parseSshTarget("box:")).toEqual({ host: "box", directory: undefined })
  expect(parseSshTarget("box:~/my project")).toEqual({ host: "box", directory: "~/my project" })
  expect(parseSshTarget("me@[::1]:/tmp")).toEqual({ host: "me@::1", directory: "/tmp" })
  expect(() => parseSshTarget(":/srv")).toThrow(new UsageError('--ssh expects [USER@]HOST[:DIR], got ":/srv"'))
  expect(() => parseSshTarget("-oProxyCommand=x")).toThrow(UsageError)
})

test("remote words are quoted for the remote shell; ~/ still expands", () => {
  expect(shellQuote("/srv/app")).toBe("/srv/app")
  expect(shellQuote("~/bin/clanka")).toBe("~/bin/clanka")
  expect(shellQuote("/srv/my app")).toBe("'/srv/my app'")
  expect(shellQuote("~/my app")).toBe("~/'my app'")
  expect(shellQuote("it's; rm -rf /")).toBe("'it'\\''s; rm -rf /'")
  expect(shellQuote("$(reboot)")).toBe("'$(reboot)'")
})

test("--executor and --ssh together are bad usage", async () => {
  const error = await connectExecutor({ executor: "clanka executor", ssh: "box" }).catch((error) => error)
  expect(error).toBeInstanceOf(UsageError)
  expect(error.message).toBe("--executor and --ssh both choose the executor; pass only one of them")
})
