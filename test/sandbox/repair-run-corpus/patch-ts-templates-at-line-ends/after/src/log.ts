export function log(level: string, msg: string) {
  console.log(`[${level}] ${msg}`)
  return { line: `${level}: ${msg}`, at: Date.now() }
}
