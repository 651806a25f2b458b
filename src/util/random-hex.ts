/**
 * `bytes` random bytes as hex, from Web Crypto: node:crypto's randomBytes would load node:crypto
 * (and Node's streams) at every executor's start.
 */
export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex")
}
