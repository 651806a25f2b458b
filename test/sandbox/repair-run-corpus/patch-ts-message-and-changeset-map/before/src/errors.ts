import { Data } from "effect"

export class InvalidGitFlow extends Data.TaggedError("InvalidGitFlow")<{ projectId: string; flow: string }> {
  get message() {
    return "invalid git flow"
  }
}
