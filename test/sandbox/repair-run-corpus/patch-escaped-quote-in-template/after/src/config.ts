export function requireKey(env: Record<string, string | undefined>, key: string): string {
  const value = env[key]
  if (!value) throw new Error(`Missing \"${key}\": set it in .env or export it`)
  return value
}
