export function requireKey(env: Record<string, string | undefined>, key: string): string {
  const value = env[key]
  if (!value) throw new Error("missing " + key)
  return value
}
