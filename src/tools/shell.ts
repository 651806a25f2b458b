import type { Tool } from "./tool.ts"

export const shellTools: Tool[] = []
