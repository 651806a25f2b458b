import { Effect } from "effect"
import { readConfig } from "./config"
import { MissingRalphSpec } from "./errors"

export const loadProject = (dir: string) =>
  Effect.gen(function* () {
    const config = yield* readConfig(dir)
    if (config.gitFlow === "ralph" && !config.ralphSpec?.trim()) {
      yield* Effect.logWarning(`gitFlow=\"ralph\" in ${dir}\\project.json needs \"ralphSpec\"`)
      return yield* new MissingRalphSpec({ projectId: config.id })
    }
    const slug = config.id.replace(/\s+/g, "-")
    yield* Effect.logDebug(`loaded ${slug} (${config.gitFlow})`)
    return config
  })
