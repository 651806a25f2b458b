import type { Tool } from "./tool.ts"

export const webTools: Tool[] = []
