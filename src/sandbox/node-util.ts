/**
 * node:util, loaded when first needed: most scripts never print an object, and loading it costs
 * a sandbox worker's first script milliseconds.
 */
export function nodeUtil(): typeof import("node:util") {
  return process.getBuiltinModule("node:util")
}
