// A macro: Bun runs it when it bundles (and when it transpiles the importing file from source)
// and puts its result in the code. The built-in tools' names and declarations are then known
// without loading the tools' modules (builtin-tools.ts).
import { builtinRegistry } from "./registry.ts"

export interface BuiltinManifest {
  names: string[]
  spread: string[]
  dts: string
}

export function builtinManifest(): { search: BuiltinManifest; noSearch: BuiltinManifest } {
  const manifest = (search: boolean): BuiltinManifest => {
    const registry = builtinRegistry(search)
    return { names: [...registry.names], spread: [...registry.spread], dts: registry.dts }
  }
  return { search: manifest(true), noSearch: manifest(false) }
}
