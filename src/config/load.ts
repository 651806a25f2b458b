/**
 * Finds, reads, checks and merges the configuration files. Lowest to highest precedence: the
 * user's `$XDG_CONFIG_HOME/clanka/config.json`, then for each directory from the repository root
 * down to the project directory its `.mcp.json` and its `clanka.json`. A nearer file wins key by
 * key; `mcpServers` merge server by server, and the `hooks` of every file run (each point's lists
 * are joined, the user's first). Flags (and CLANKA_MODEL) beat every file.
 *
 * The user's file is trusted; the project's files only when the user trusts the project
 * (trust.ts) or the run says --trust-project. Untrusted files may only narrow (see `narrow`).
 * Values stay as written: `${VAR}` is expanded where a server starts (expand.ts), never here.
 */
import { join, resolve } from "node:path"
import type { ParsedFile, SkippedServer } from "./parse-file.ts"
import { readIfPresent, readProjectFiles } from "./project-files.ts"
import type { Config } from "./schema.ts"
import { trustKey } from "./trust-key.ts"

export { projectDirectories } from "./project-files.ts"

type Env = Record<string, string | undefined>

/** user: the user's own file; trusted / untrusted: a project file, by the user's trust. */
export type FileTrust = "user" | "trusted" | "untrusted"

export interface LoadedFile {
  path: string
  trust: FileTrust
  /** The file's values as written (relative `writable` directories taken from the file's directory). */
  values: Config
  /** The keys whose values were ignored because the file is untrusted. */
  ignored: (keyof Config)[]
  /** The servers of a `.mcp.json` that clanka cannot use (left out of `values`), and why. */
  skipped: SkippedServer[]
}

export interface LoadedConfig {
  /** The merged values, as written (no `${VAR}` expanded). */
  config: Config
  /** Where each value came from: top-level keys, and `mcpServers.<name>` per server. */
  sources: Record<string, string>
  /** Every file that was read, lowest precedence first. */
  files: LoadedFile[]
  /** The project directory, as the files were looked up from. */
  directory: string
  /** The directory whose trust decides for the project files (its real path): `clanka trust` it. */
  project: string
}

export interface LoadOptions {
  /** --trust-project: the project's files are trusted for this run without a record. */
  trustProject?: boolean
  env?: Env
}

/** The user's config file: `$XDG_CONFIG_HOME/clanka/config.json` (default ~/.config). */
export function userConfigPath(env: Env = process.env): string | undefined {
  const dir = userConfigDir(env)
  return dir ? join(dir, "config.json") : undefined
}

/** The user's clanka directory, `$XDG_CONFIG_HOME/clanka`: config.json, AGENTS.md, skills/. */
export function userConfigDir(env: Env = process.env): string | undefined {
  // A relative XDG path is invalid by the XDG spec and ignored.
  const base = env.XDG_CONFIG_HOME?.startsWith("/") ? env.XDG_CONFIG_HOME : env.HOME ? join(env.HOME, ".config") : undefined
  return base ? join(base, "clanka") : undefined
}

const cache = new Map<string, LoadedConfig>()

/** The merged configuration for a project directory (read once per process and directory). */
export function loadConfig(directory: string, options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env
  const user = userConfigPath(env)
  const key = `${resolve(directory)}\0${user ?? ""}\0${options.trustProject === true}`
  const cached = cache.get(key)
  if (cached) return cached
  const loaded: LoadedConfig = { config: {}, sources: {}, files: [], directory: resolve(directory), project: trustKey(directory) }
  const layers: { path: string; kind: "config" | "mcp"; content: Buffer; trust: FileTrust }[] = []
  const userContent = user === undefined ? undefined : readIfPresent(user)
  if (user !== undefined && userContent !== undefined) layers.push({ path: user, kind: "config", content: userContent, trust: "user" })
  const projectFiles = readProjectFiles(directory)
  if (projectFiles.some((file) => file.content !== undefined)) {
    // The trust is decided on the bytes read above, before anything in them is used.
    const { isTrusted } = require("./trust.ts") as typeof import("./trust.ts")
    const trust: FileTrust = options.trustProject || isTrusted(directory, projectFiles, env) ? "trusted" : "untrusted"
    for (const file of projectFiles) {
      if (file.content !== undefined && file.path !== user) layers.push({ path: file.path, kind: file.kind, content: file.content, trust })
    }
  }
  // The schemas (valibot) load only when there is a file to check: the agent reads its config
  // before it starts its sandbox, and most runs have none.
  const parsed: ((typeof layers)[number] & ParsedFile)[] = []
  if (layers.length > 0) {
    const { parseConfigFile } = require("./parse-file.ts") as typeof import("./parse-file.ts")
    for (const layer of layers) parsed.push({ ...layer, ...parseConfigFile(layer.path, layer.kind, layer.content, layer.trust === "untrusted") })
  }
  // What the trusted files alone give: an untrusted value may be as strict or stricter.
  const base: Config = {}
  for (const layer of parsed) if (layer.trust !== "untrusted") Object.assign(base, pick(layer.values, "sandbox", "network"))
  for (const layer of parsed) {
    const { kept, ignored } = layer.trust === "untrusted" ? narrow(layer.values, base) : { kept: layer.values, ignored: [] }
    loaded.files.push({ path: layer.path, trust: layer.trust, values: layer.values, ignored, skipped: layer.skipped })
    merge(loaded, kept, layer.path)
  }
  cache.set(key, loaded)
  return loaded
}

/** Keys an untrusted file keeps as they are: they change what the agent does, not what it may reach. */
const HARMLESS = new Set<string>(["$schema", "model", "subagentModel", "output", "maxTurns", "turnTimeout", "system"])

/** Loosest first; no sandbox named (auto: workspace-write where it works) sits above off. */
const STRICTNESS = { off: 0, auto: 1, "workspace-write": 2, "read-only": 3 } as const

/**
 * An untrusted file's values that only narrow what the trusted ones give: the harmless keys, a
 * sandbox at least as strict, network only to turn it off. Its writable, env, remoteBin and
 * mcpServers are ignored (its servers never start).
 */
function narrow(values: Config, base: Config): { kept: Config; ignored: (keyof Config)[] } {
  const kept: Record<string, unknown> = {}
  const ignored: (keyof Config)[] = []
  for (const [key, value] of Object.entries(values) as [keyof Config, unknown][]) {
    if (value === undefined) continue
    const narrows =
      HARMLESS.has(key) ||
      (key === "sandbox" && STRICTNESS[value as Config["sandbox"] & string] >= STRICTNESS[base.sandbox ?? "auto"]) ||
      (key === "network" && (value === false || base.network === true))
    if (narrows) kept[key] = value
    else ignored.push(key)
  }
  return { kept: kept as Config, ignored }
}

function pick(values: Config, ...keys: (keyof Config)[]): Config {
  return Object.fromEntries(keys.filter((key) => values[key] !== undefined).map((key) => [key, values[key]]))
}

function merge(into: LoadedConfig, data: Config, path: string): void {
  for (const [key, value] of Object.entries(data)) {
    if (key === "$schema" || value === undefined) continue
    if (key === "hooks") {
      // Every file's hooks run (the user's first): a project cannot drop the user's policy.
      const hooks: Record<string, unknown[]> = { ...into.config.hooks }
      for (const [point, list] of Object.entries(value as NonNullable<Config["hooks"]>)) hooks[point] = [...(hooks[point] ?? []), ...(list ?? [])]
      into.config.hooks = hooks as Config["hooks"]
      into.sources.hooks = into.sources.hooks ? `${into.sources.hooks}, ${path}` : path
      continue
    }
    if (key === "mcpServers") {
      into.config.mcpServers = { ...into.config.mcpServers }
      for (const [name, server] of Object.entries(value as NonNullable<Config["mcpServers"]>)) {
        into.config.mcpServers[name] = server
        into.sources[`mcpServers.${name}`] = path
      }
      continue
    }
    ;(into.config as Record<string, unknown>)[key] = value
    into.sources[key] = path
  }
}
