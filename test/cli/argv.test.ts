// The arguments each command's run() receives, read by argv.ts from the flags commands.ts declares.
import { expect, test } from "bun:test"
import { checkArgs, repeated } from "../../src/cli/argv.ts"
import { commands } from "../../src/cli/commands.ts"

const run = (...argv: string[]) => checkArgs(argv, commands.run!.args).args

test("flags not given take their declared defaults; undeclared values are absent", () => {
  const args = run("fix", "it")
  expect(args.upload).toBe(true)
  expect(args.search).toBe(true)
  expect(args.session).toBe(true)
  expect("model" in args).toBe(false)
  expect("network" in args).toBe(false)
  expect(args.prompt).toBe("fix")
  expect(args._).toEqual(["fix", "it"])
})

test("every spelling of a string flag, and of its alias", () => {
  for (const argv of [["--model", "a/b"], ["--model=a/b"], ["-m", "a/b"], ["-ma/b"]]) expect(run(...argv).model).toBe("a/b")
  for (const argv of [["-C", "/x"], ["-C/x"], ["--directory", "/x"], ["--directory=/x"]]) expect(run(...argv).directory).toBe("/x")
})

test("booleans: on, off with --no-, off with =false; the last one given wins", () => {
  expect(run("--network").network).toBe(true)
  expect(run("--no-search").search).toBe(false)
  expect(run("--search=false").search).toBe(false)
  expect(run("--no-upload", "--upload").upload).toBe(true)
  expect(checkArgs(["-e", "1"], commands.exec!.args).args.eval).toBe("1")
})

test("short flags in a cluster: booleans, then a string that takes the rest of the word", () => {
  const spec = { all: { type: "boolean", alias: "a" }, brief: { type: "boolean", alias: "b" }, name: { type: "string", alias: "n" } }
  expect(checkArgs(["-abnX"], spec).args).toEqual({ all: true, brief: true, name: "X", _: [] })
  expect(checkArgs(["-bn", "Y"], spec).args).toEqual({ brief: true, name: "Y", _: [] })
})

test("a repeatable flag's values, in order; a positional after -- keeps its dash", () => {
  const args = run("--writable", "/a", "--writable=/b", "--", "-5", "x")
  expect(repeated(args.writable as string)).toEqual(["/a", "/b"])
  expect(args.prompt).toBe("-5")
  expect(args._).toEqual(["-5", "x"])
})

test("a declared positional not given: absent; a command's second positional by its name", () => {
  expect("prompt" in run("--json")).toBe(false)
  const sessions = checkArgs(["show", "abc"], commands.sessions!.args).args
  expect(sessions).toMatchObject({ action: "show", id: "abc", _: ["show", "abc"] })
})

test("positional words: one too many or a required one missing is a usage error naming the command; run takes any number", () => {
  const words = (command: string, ...argv: string[]) => () => checkArgs(argv, commands[command]!.args, { command, joinsWords: command === "run" })
  expect(words("sessions", "show", "abc", "extra")).toThrow('unexpected argument "extra" (see clanka sessions --help)')
  expect(words("run", "fix", "the", "bug")()).toMatchObject({ args: { prompt: "fix", _: ["fix", "the", "bug"] } })
  expect(words("trust", "a", "b")).toThrow('unexpected argument "b" (see clanka trust --help)')
  expect(words("summary")).toThrow("missing FILE|- (see clanka summary --help)")
})
