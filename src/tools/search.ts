import type { Tool } from "./tool.ts"

export const searchTools: Tool[] = []
