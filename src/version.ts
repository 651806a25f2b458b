// Kept in a module of its own so that `clanka --version` imports nothing else.
import pkg from "../package.json" with { type: "json" }

export const VERSION: string = pkg.version
/** Bumped when the executor protocol changes incompatibly (SPEC section 4). */
export const PROTOCOL_VERSION = 1
