// The todo list as a script sees it: kept by the executor across executes, one list per executor.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connectExecutor } from "../../src/executor/connect.ts"
import type { Executor } from "../../src/contract.ts"
import { LocalExecutor } from "../../src/executor/local.ts"
import { BUN, MAIN } from "../protocol/raw-session.ts"

let dir: string
const executors: Executor[] = []

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "clanka-todos-")))
})
afterAll(async () => {
  await Promise.all(executors.map((executor) => executor.close()))
  rmSync(dir, { recursive: true, force: true })
})

function local(): Executor {
  const executor = new LocalExecutor({ directory: dir })
  executors.push(executor)
  return executor
}

/** Runs one script and returns what it printed; a failing script fails the test with its output. */
async function run(executor: Executor, script: string): Promise<string> {
  let output = ""
  try {
    for await (const text of executor.execute({ script, onTaskComplete() {}, onSubagent: async () => "" })) output += text
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${output}`)
  }
  return output
}

const show = "console.log(JSON.stringify(await listTodos()))"

async function checkTodoList(executor: Executor): Promise<void> {
  expect(await run(executor, show)).toBe("[]\n")
  expect(await run(executor, `console.log(JSON.stringify(await addTodo("write the parser")))`)).toBe(
    '{"id":1,"text":"write the parser","completed":false}\n',
  )
  // A later execute sees the list, and ids go on increasing.
  expect(await run(executor, `console.log(JSON.stringify(await addTodo("test it"))); ${show}`)).toBe(
    '{"id":2,"text":"test it","completed":false}\n' +
      '[{"id":1,"text":"write the parser","completed":false},{"id":2,"text":"test it","completed":false}]\n',
  )
  expect(await run(executor, `console.log(JSON.stringify(await updateTodo({ id: 1, completed: true })))`)).toBe(
    '{"id":1,"text":"write the parser","completed":true}\n',
  )
  expect(await run(executor, `console.log(JSON.stringify(await updateTodo({ id: 2, text: "test the parser" }))); ${show}`)).toBe(
    '{"id":2,"text":"test the parser","completed":false}\n' +
      '[{"id":1,"text":"write the parser","completed":true},{"id":2,"text":"test the parser","completed":false}]\n',
  )
  expect(await run(executor, `console.log(await clearTodos()); ${show}`)).toBe("undefined\n[]\n")
  // Ids are not reused after clearing: an old id cannot name a new item.
  expect(await run(executor, `console.log(JSON.stringify(await addTodo("ship")))`)).toBe('{"id":3,"text":"ship","completed":false}\n')
}

test("the todo list lasts from one execute to the next; update and clear change it", async () => {
  await checkTodoList(local())
})

test("each executor has its own todo list", async () => {
  const first = local()
  const second = local()
  await run(first, `await addTodo("only in the first")`)
  expect(await run(second, show)).toBe("[]\n")
  expect(await run(second, `console.log(JSON.stringify(await addTodo("only in the second")))`)).toBe(
    '{"id":1,"text":"only in the second","completed":false}\n',
  )
  expect(await run(first, show)).toBe('[{"id":1,"text":"only in the first","completed":false}]\n')
})

test("over the protocol, the list lives in the `clanka executor` process; executeUnsafe shares it", async () => {
  const remote = await connectExecutor({ executor: `'${BUN}' '${MAIN}' executor -C '${dir}'` })
  executors.push(remote)
  await checkTodoList(remote)
  expect(await remote.executeUnsafe("listTodos", undefined)).toEqual([{ id: 3, text: "ship", completed: false }])
  expect(await remote.executeUnsafe("addTodo", "from the command line")).toEqual({ id: 4, text: "from the command line", completed: false })
  expect(await run(remote, show)).toBe(
    '[{"id":3,"text":"ship","completed":false},{"id":4,"text":"from the command line","completed":false}]\n',
  )
})
