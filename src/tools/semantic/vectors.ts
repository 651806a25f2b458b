import type { ToolContext } from "../tool.ts"
import type { SearchIndex } from "./index.ts"

export async function vectorRanking(_index: SearchIndex, _query: string, _ctx: Pick<ToolContext, "agentCall" | "signal">, _depth: number): Promise<{ ids: number[]; note?: string } | undefined> {
  return undefined
}
