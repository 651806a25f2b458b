/** A yes/no environment variable (CLANKA_NO_SESSION, CLANKA_TRUST_PROJECT): on unless unset, empty, `0` or `false`. */
export function envFlag(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false"
}
