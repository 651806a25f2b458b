import { Effect } from "effect"
import { readConfig } from "./config"

export const loadProject = (dir: string) =>
  Effect.gen(function* () {
    const config = yield* readConfig(dir)
    return config
  })
