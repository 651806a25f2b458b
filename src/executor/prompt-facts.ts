import type { PromptFacts, SandboxPolicy } from "../contract.ts"

/**
 * What a local `clanka executor -C directory` with the built-in tools, in `policy`'s sandbox,
 * announces for the system prompt: the same declarations, files and facts it gathers
 * (LocalExecutor.capabilities), worked out here while it starts.
 */
export async function localPromptFacts(directory: string, search: boolean, policy: SandboxPolicy): Promise<PromptFacts> {
  const [{ builtinToolsFor, ToolRegistry }, { gatherContext }] = await Promise.all([import("../tools/registry.ts"), import("./context.ts")])
  const tools = new ToolRegistry(builtinToolsFor({ search }))
  const context = await gatherContext(directory, { shell: rememberedShell })
  return {
    toolsDts: tools.dts,
    agentsMd: context.agentsMd,
    instructionsFiles: context.instructionsFiles,
    ...(tools.has("skill") ? { skills: context.skills } : {}),
    environment: context.environment,
    directory,
    sandbox: { mode: policy.mode, network: policy.network, ...(policy.backend ? { backend: policy.backend } : {}) },
  }
}

/** A shell version as the probe words it: anything else in the file is not taken into the prompt. */
const SHELL_VERSION = /^bash( [0-9][0-9A-Za-z.-]*)?$/

/**
 * The shell's version as a run of bash found it, remembered for this bash (probe-cache.ts): the
 * executor runs bash for it anyway, the agent need not run one too at every start.
 */
async function rememberedShell(): Promise<string | undefined> {
  const [{ programKey, remembered, remember }, { shellVersion }] = await Promise.all([import("./probe-cache.ts"), import("./environment.ts")])
  const key = programKey("bash")
  const known = key === undefined ? undefined : remembered("bash", key)
  if (known !== undefined && SHELL_VERSION.test(known)) return known
  const version = await shellVersion()
  if (key !== undefined && version !== undefined && SHELL_VERSION.test(version)) remember("bash", key, version)
  return version
}
