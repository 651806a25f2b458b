/**
 * Finds, reads, checks and merges the configuration files. Lowest to highest precedence: the
 * user's `$XDG_CONFIG_HOME/clanka/config.json`, then for each directory from the repository root
 * down to the project directory its `.mcp.json` and its `clanka.json`. A nearer file wins key by
 * key; `mcpServers` merge server by server. Flags (and CLANKA_MODEL) beat every file.
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, isAbsolute, join, resolve } from "node:path"
import * as v from "valibot"
import { UsageError } from "../errors.ts"
import { type Config, ConfigSchema, McpJsonSchema } from "./schema.ts"

export interface LoadedConfig {
  /** The merged values. */
  config: Config
  /** Where each value came from: top-level keys, and `mcpServers.<name>` per server. */
  sources: Record<string, string>
  /** Every file that was read, lowest precedence first. */
  files: string[]
}

/** The user's config file: `$XDG_CONFIG_HOME/clanka/config.json` (default ~/.config). */
export function userConfigPath(env: Record<string, string | undefined> = process.env): string | undefined {
  // A relative XDG path is invalid by the XDG spec and ignored.
  const base = env.XDG_CONFIG_HOME?.startsWith("/") ? env.XDG_CONFIG_HOME : env.HOME ? join(env.HOME, ".config") : undefined
  return base ? join(base, "clanka", "config.json") : undefined
}

/**
 * The project's directories, nearest last: `directory` and its parents up to the repository root
 * (the nearest one holding `.git`); outside a repository, `directory` alone.
 */
export function projectDirectories(directory: string): string[] {
  const dirs: string[] = []
  let dir = resolve(directory)
  for (;;) {
    dirs.push(dir)
    if (existsSync(join(dir, ".git"))) return dirs.reverse()
    const parent = dirname(dir)
    if (parent === dir) return [resolve(directory)]
    dir = parent
  }
}

const cache = new Map<string, LoadedConfig>()

/** The merged configuration for a project directory (read once per process and directory). */
export function loadConfig(directory: string, env: Record<string, string | undefined> = process.env): LoadedConfig {
  const key = `${resolve(directory)}\0${userConfigPath(env) ?? ""}`
  const cached = cache.get(key)
  if (cached) return cached
  const loaded: LoadedConfig = { config: {}, sources: {}, files: [] }
  const user = userConfigPath(env)
  const layers: { path: string; kind: "config" | "mcp" }[] = user ? [{ path: user, kind: "config" }] : []
  for (const dir of projectDirectories(directory)) {
    layers.push({ path: join(dir, ".mcp.json"), kind: "mcp" }, { path: join(dir, "clanka.json"), kind: "config" })
  }
  const seen = new Set<string>()
  for (const layer of layers) {
    if (seen.has(layer.path)) continue
    seen.add(layer.path)
    const data = readLayer(layer.path, layer.kind, env)
    if (data === undefined) continue
    loaded.files.push(layer.path)
    merge(loaded, data, layer.path)
  }
  cache.set(key, loaded)
  return loaded
}

function readLayer(path: string, kind: "config" | "mcp", env: Record<string, string | undefined>): Config | undefined {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT" || code === "ENOTDIR") return undefined
    throw new UsageError(`${path}: cannot read it: ${code ?? (error as Error).message}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${path}: not JSON: ${(error as Error).message}`)
  }
  const parsed = v.safeParse(kind === "config" ? ConfigSchema : McpJsonSchema, json)
  if (!parsed.success) throw new UsageError(`${path}: ${describeIssue(parsed.issues[0]!)}`)
  const config: Config = kind === "config" ? (parsed.output as Config) : { ...(parsed.output.mcpServers ? { mcpServers: parsed.output.mcpServers } : {}) }
  if (config.mcpServers) {
    for (const [name, server] of Object.entries(config.mcpServers)) {
      config.mcpServers[name] = expandVariables(server, `mcpServers.${name}`, path, env)
    }
  }
  if (config.writable) config.writable = config.writable.map((dir: string) => (isAbsolute(dir) ? dir : resolve(dirname(path), dir)))
  return config
}

function merge(into: LoadedConfig, data: Config, path: string): void {
  for (const [key, value] of Object.entries(data)) {
    if (key === "$schema" || value === undefined) continue
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

/** `key.path: what is wrong`, or `unknown key "x"` for a key the file may not hold. */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const path = (issue.path ?? []).map((item) => String(item.key))
  if (issue.type === "strict_object") {
    const key = path.at(-1) ?? String(issue.input)
    const where = path.slice(0, -1).join(".")
    return `unknown key "${key}"${where ? ` in ${where}` : ""}`
  }
  const message = issue.message.startsWith("Invalid ") ? issue.message.replace(/^Invalid (\w+): /, "").replace(/^Expected/, "expected") : issue.message
  return path.length ? `${path.join(".")}: ${message}` : message
}

/**
 * `${NAME}` and `${NAME:-default}` in a server's strings are taken from the environment, as in
 * other agents' `.mcp.json` (a token in a header, a path in args). A variable that is not set and
 * has no default is a mistake in the file.
 */
function expandVariables<T>(value: T, key: string, path: string, env: Record<string, string | undefined>): T {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
      const found = env[name]
      if (found !== undefined && found !== "") return found
      if (fallback !== undefined) return fallback
      throw new UsageError(`${path}: ${key}: \${${name}} is not set; set the variable or give a default with \${${name}:-value}`)
    }) as T
  }
  if (Array.isArray(value)) return value.map((item, i) => expandVariables(item, `${key}.${i}`, path, env)) as T
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, expandVariables(item, `${key}.${k}`, path, env)])) as T
  }
  return value
}
