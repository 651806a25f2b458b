import type { Tool } from "./tool.ts"

export const fsTools: Tool[] = []
