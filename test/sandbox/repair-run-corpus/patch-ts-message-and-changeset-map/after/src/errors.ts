import { Data } from "effect"

export class InvalidGitFlow extends Data.TaggedError("InvalidGitFlow")<{ projectId: string; flow: string }> {
  get message() {
    return `Project "${this.projectId}" has gitFlow=\"${this.flow}\"; expected \"trunk\" or \"ralph\"`
  }
}
