/**
 * Today's date in the local time zone without Date's local-time methods: their first use loads
 * ICU's zone data, 12 to 30 ms of every executor's start. The zone's offset is read from its
 * TZif file (/etc/localtime, or $TZ's file) instead; where that cannot be done surely (a POSIX
 * TZ rule, a zone whose daylight saving time lies past its table), Date does it.
 */
import { readFileSync } from "node:fs"

const ZONEINFO = "/usr/share/zoneinfo"

/** YYYY-MM-DD of `now` in `zone` (a TZ value; default $TZ, else /etc/localtime). */
export function localDate(now: Date, zone: string | undefined = process.env.TZ): string {
  const offset = zoneOffsetSeconds(now.getTime(), zone)
  const pad = (n: number) => String(n).padStart(2, "0")
  if (offset === undefined) return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`
  const local = new Date(now.getTime() + offset * 1000)
  return `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`
}

/** The offset from UTC in seconds at `ms`, or undefined when the zone file cannot tell. */
export function zoneOffsetSeconds(ms: number, zone: string | undefined): number | undefined {
  const name = zone?.startsWith(":") ? zone.slice(1) : zone
  if (name === "" || name === "UTC" || name === "UTC0" || name === "GMT" || name === "GMT0") return 0
  let path: string
  if (name === undefined) path = "/etc/localtime"
  else if (name.startsWith("/")) path = name
  else if (/^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/.test(name)) path = `${ZONEINFO}/${name}`
  else return undefined
  try {
    return offsetFromTzif(readFileSync(path), Math.floor(ms / 1000))
  } catch {
    return undefined
  }
}

/** The TZif (RFC 8536) version 2+ data's offset at `seconds`; undefined when it needs the footer's rule. */
function offsetFromTzif(data: Buffer, seconds: number): number | undefined {
  if (data.toString("latin1", 0, 4) !== "TZif" || data[4] === 0) return undefined
  // Skip the version 1 block (32-bit times) to the version 2 header.
  const v1 = counts(data, 0)
  const start = 44 + v1.timecnt * 5 + v1.typecnt * 6 + v1.charcnt + v1.leapcnt * 8 + v1.isstdcnt + v1.isutcnt
  if (data.toString("latin1", start, start + 4) !== "TZif") return undefined
  const v2 = counts(data, start)
  const times = start + 44
  const indices = times + v2.timecnt * 8
  const types = indices + v2.timecnt
  let type = 0
  let after = true
  for (let i = 0; i < v2.timecnt; i++) {
    if (Number(data.readBigInt64BE(times + i * 8)) > seconds) {
      after = false
      break
    }
    type = data[indices + i]!
  }
  if (v2.timecnt === 0 || type >= v2.typecnt) return v2.typecnt === 1 ? data.readInt32BE(types) : undefined
  if (after) {
    // Past the table: the footer's rule applies; only a rule without daylight saving time is sure.
    const footerStart = types + v2.typecnt * 6 + v2.charcnt + v2.leapcnt * 12 + v2.isstdcnt + v2.isutcnt
    const footer = data.toString("latin1", footerStart).split("\n")[1] ?? ""
    if (footer.includes(",")) return undefined
  }
  return data.readInt32BE(types + type * 6)
}

function counts(data: Buffer, at: number) {
  return {
    isutcnt: data.readUInt32BE(at + 20),
    isstdcnt: data.readUInt32BE(at + 24),
    leapcnt: data.readUInt32BE(at + 28),
    timecnt: data.readUInt32BE(at + 32),
    typecnt: data.readUInt32BE(at + 36),
    charcnt: data.readUInt32BE(at + 40),
  }
}
