/**
 * The Landlock step's name and the settings it starts with: what the processes that start it (the
 * agent, the MCP relay, the standby) need to know of it, without its modules.
 */

/** The subcommand (hidden from help) that enforces a plan and executes its command (or goes on as it). */
export const LANDLOCK_EXEC = "__landlock-exec"

/**
 * In the step's environment, set by whoever starts it (the step removes them from what the
 * executor's commands get): the heap's block warm-up thread starts after 256 blocks (4 MiB) rather
 * than 64, which the step alone reaches; the allocator purges freed memory on the thread that
 * frees it, as upstream mimalloc does, rather than on a thread of its own (landlock-in-place.ts).
 */
export const ONE_THREAD_ENV: Readonly<Record<string, string>> = { BUN_JSC_warmUpMarkedBlockStartAfterBlocks: "256", MIMALLOC_SCAVENGER: "0" }
