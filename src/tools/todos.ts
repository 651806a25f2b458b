import * as v from "valibot"
import { ToolError } from "../errors.ts"
import { defineTool } from "./tool.ts"

const TodoSchema = v.object({ id: v.number(), text: v.string(), completed: v.boolean() })
export type Todo = v.InferOutput<typeof TodoSchema>

/** The todo list of one executor; it lasts as long as the executor does. */
export class TodoStore {
  private items: Todo[] = []
  private nextId = 1

  list(): Todo[] {
    return this.items.map((todo) => ({ ...todo }))
  }

  add(text: string): Todo {
    const todo = { id: this.nextId++, text, completed: false }
    this.items.push(todo)
    return { ...todo }
  }

  update(id: number, change: { text?: string; completed?: boolean }): Todo {
    const todo = this.items.find((item) => item.id === id)
    if (!todo) throw new ToolError(`no todo with id ${id}; listTodos() shows the ids`)
    if (change.text !== undefined) todo.text = change.text
    if (change.completed !== undefined) todo.completed = change.completed
    return { ...todo }
  }

  clear(): void {
    this.items = []
  }
}

export const todoTools = [
  defineTool({
    name: "listTodos",
    keepsIndex: true,
    description: "List the todo list of this session.",
    params: v.void(),
    result: v.array(TodoSchema),
    run: async (_, ctx) => ctx.todos.list(),
  }),
  defineTool({
    name: "addTodo",
    keepsIndex: true,
    description: "Add an item to the todo list; returns it with its id.",
    params: v.string(),
    paramName: "text",
    result: TodoSchema,
    run: async (text, ctx) => ctx.todos.add(text),
  }),
  defineTool({
    name: "updateTodo",
    keepsIndex: true,
    description: "Change a todo's text or mark it completed.",
    params: v.object({ id: v.number(), text: v.optional(v.string()), completed: v.optional(v.boolean()) }),
    result: TodoSchema,
    run: async ({ id, ...change }, ctx) => ctx.todos.update(id, change),
  }),
  defineTool({
    name: "clearTodos",
    keepsIndex: true,
    description: "Remove every item from the todo list.",
    params: v.void(),
    result: v.void(),
    run: async (_, ctx) => ctx.todos.clear(),
  }),
]
