import type { Tool } from "./tool.ts"

export const patchTools: Tool[] = []
