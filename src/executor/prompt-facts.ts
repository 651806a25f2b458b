import type { PromptFacts, SandboxPolicy } from "../contract.ts"

/**
 * What a local `clanka executor -C directory` with the built-in tools, in `policy`'s sandbox,
 * announces for the system prompt: the same declarations, files and facts it gathers
 * (LocalExecutor.capabilities), worked out here while it starts.
 */
export async function localPromptFacts(directory: string, search: boolean, policy: SandboxPolicy): Promise<PromptFacts> {
  const [{ builtinToolsFor, ToolRegistry }, { gatherContext }] = await Promise.all([import("../tools/registry.ts"), import("./context.ts")])
  const tools = new ToolRegistry(builtinToolsFor({ search }))
  const context = await gatherContext(directory, { shell: rememberedShellVersion })
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

/**
 * The shell's version as a run of bash found it, remembered for this bash (probe-cache.ts): the
 * agent need not run a bash of its own at every start.
 */
async function rememberedShellVersion(): Promise<string | undefined> {
  const [{ rememberedShell, rememberShell }, { shellVersion }] = await Promise.all([import("./probe-cache.ts"), import("./environment.ts")])
  const known = rememberedShell()
  if (known !== undefined) return known
  const version = await shellVersion()
  rememberShell(version)
  return version
}
