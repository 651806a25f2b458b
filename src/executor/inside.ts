/** Set inside the sandbox, so that the executor there serves instead of sandboxing itself again. */
export const INSIDE_VARIABLE = "CLANKA_SANDBOX_INSIDE"
