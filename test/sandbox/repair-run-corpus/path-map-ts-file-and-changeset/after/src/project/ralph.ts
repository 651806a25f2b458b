import { Schema } from "effect"

export class MissingRalphSpec extends Schema.TaggedError<MissingRalphSpec>()("MissingRalphSpec", {
  projectId: Schema.String,
}) {
  readonly message = `Project "${this.projectId}" is configured with gitFlow=\"ralph\" but is missing \"ralphSpec\"`
}

export const describeFlow = (flow: string, spec?: string) =>
  spec ? `${flow} (spec: ${spec})` : flow
