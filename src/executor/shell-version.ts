/** A shell's version as the executor's probe words it ("bash 5.2.15"); nothing else from a file or the environment reaches a prompt. */
export const SHELL_VERSION = /^bash( [0-9][0-9A-Za-z.-]*)?$/

/**
 * Set by the agent for its local executor: the version of this same bash it remembered
 * (probe-cache.ts), so that the executor's start needs no run of bash.
 */
export const SHELL_VERSION_VARIABLE = "CLANKA_SHELL_VERSION"
