import { Schema } from "effect"

export class ProjectNotFound extends Schema.TaggedError<ProjectNotFound>()("ProjectNotFound", {
  projectId: Schema.String,
}) {
  get message() {
    return `Project "${this.projectId}" was not found`
  }
}
