import type { PromptFacts, SandboxPolicy } from "../contract.ts"

/**
 * What a local `clanka executor -C directory` with the built-in tools, in `policy`'s sandbox,
 * announces for the system prompt: the same declarations, files and facts it gathers
 * (LocalExecutor.capabilities), worked out here while it starts. The shell's version is the one
 * remembered for this bash (probe-cache.ts), so the agent runs no bash of its own for it; a run
 * of bash that was needed is remembered for the next start.
 */
export async function localPromptFacts(directory: string, search: boolean, policy: SandboxPolicy): Promise<PromptFacts> {
  const [{ BuiltinTools }, { gatherContext }, { knownShellVersion }, { rememberedShell, rememberShell }] = await Promise.all([
    import("../tools/builtin-tools.ts"),
    import("./context.ts"),
    import("./environment.ts"),
    import("./probe-cache.ts"),
  ])
  const tools = new BuiltinTools(search)
  const remembered = rememberedShell()
  knownShellVersion(remembered)
  const context = await gatherContext(directory)
  if (remembered === undefined) rememberShell(context.environment.shell)
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
