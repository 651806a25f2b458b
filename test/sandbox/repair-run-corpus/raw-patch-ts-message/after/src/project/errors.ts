import { Schema } from "effect"

export class ProjectNotFound extends Schema.TaggedError<ProjectNotFound>()("ProjectNotFound", {
  projectId: Schema.String,
}) {
  get message() {
    return `Project "${this.projectId}" was not found`
  }
}

export class MissingRalphSpec extends Schema.TaggedError<MissingRalphSpec>()("MissingRalphSpec", {
  projectId: Schema.String,
}) {
  readonly message = `Project "${this.projectId}" is configured with gitFlow=\"ralph\" but is missing \"ralphSpec\"`
}
