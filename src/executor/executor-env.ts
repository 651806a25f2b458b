/**
 * The environment of an executor the agent starts: an allow-list, so the agent's keys never enter
 * it. Names given with --env pass too; nothing else does.
 */
const ALLOWED = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "TERM", "TZ", "TMPDIR", "SHELL", "XDG_CACHE_HOME"]
/** Settings of clanka's own that the executor reads (none of them secret). */
const CLANKA_SETTINGS = ["CLANKA_DEBUG", "CLANKA_SCRIPT_MEMORY_MB", "CLANKA_SEARCH_ENGINE", "CLANKA_SEARCH_WAIT_MS"]
/** Names that look like secrets: never passed unless named with --env. */
const SECRET = /_API_KEY$|_TOKEN$|_SECRET|PASSWORD/i

/**
 * The agent's own model and search keys: the commands a script runs (a repository's tests, say)
 * never get them, even named with --env (processes.ts removes them).
 */
export const WITHHELD_KEYS: readonly string[] = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "EXA_API_KEY"]

export function executorEnv(named: readonly string[] = [], from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined) continue
    const allowed = ALLOWED.includes(name) || name.startsWith("LC_") || CLANKA_SETTINGS.includes(name)
    if ((allowed && !SECRET.test(name)) || named.includes(name)) env[name] = value
  }
  return env
}

/** `--env NAME`: a variable name, not NAME=VALUE (the value comes from this environment). */
export function checkEnvName(name: string): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `--env takes a variable name such as GH_TOKEN, got "${name}"`
  return undefined
}

/**
 * The environment of a command that starts an executor clanka does not sandbox itself
 * (`--executor CMD`, ssh): this one, without the agent's own keys (model, search, telemetry). CMD may need anything else
 * (DOCKER_HOST, KUBECONFIG, SSH_AUTH_SOCK), but an executor it starts, and the scripts that can
 * read that executor's /proc/PID/environ, must not find the model's key there; ssh would pass
 * them to the host if its config's SendEnv names them.
 */
export function withoutAgentKeys(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(from)) {
    if (value !== undefined && !WITHHELD_KEYS.includes(name) && !TELEMETRY_HEADERS.includes(name)) env[name] = value
  }
  return env
}

/** The agent's own telemetry credentials: an executor's spans travel back over the protocol. */
const TELEMETRY_HEADERS = ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"]
