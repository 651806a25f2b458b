const files = {
  "src/project/ralph.ts": `import { Schema } from "effect"

export class MissingRalphSpec extends Schema.TaggedError<MissingRalphSpec>()("MissingRalphSpec", {
  projectId: Schema.String,
}) {
  readonly message = `Project "${this.projectId}" is configured with gitFlow=\"ralph\" but is missing \"ralphSpec\"`
}

export const describeFlow = (flow: string, spec?: string) =>
  spec ? `${flow} (spec: ${spec})` : flow
`,
  ".changeset/ralph-spec-check.md": `---\n"@acme/projects": patch\n---\n\nFail early with \\`MissingRalphSpec\\` when \\`gitFlow\\` is \\`"ralph"\\` and no spec is set.\n`,
}
for (const [path, content] of Object.entries(files)) {
  await writeFile({ path, content })
  console.log(`wrote ${path}`)
}
