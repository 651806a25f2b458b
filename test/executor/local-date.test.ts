// The executor's "today" in the system prompt is read from the zone file (Date's local-time
// methods would load ICU's zone data at every start): it must be the date Intl gives.
import { expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { localDate, zoneOffsetSeconds } from "../../src/executor/local-date.ts"

const zones = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham", "America/St_Johns", "Asia/Kathmandu"].filter(
  (zone) => zone === "UTC" || existsSync(`/usr/share/zoneinfo/${zone}`),
)
// Around midnight in several zones, on both sides of daylight saving time changes.
const instants = ["2026-03-08T04:30:00Z", "2026-03-29T00:59:00Z", "2026-03-29T23:30:00Z", "2026-06-30T18:45:00Z", "2026-10-25T00:30:00Z", "2026-11-01T05:59:00Z", "2026-12-31T23:59:00Z", "2027-01-01T10:00:00Z"]

test("the local date read from the zone file is Intl's, across zones and daylight saving time changes", () => {
  expect(zones.length).toBeGreaterThan(1)
  for (const zone of zones) {
    for (const instant of instants) {
      const now = new Date(instant)
      const expected = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now)
      expect(`${zone} ${instant} ${localDate(now, zone)}`).toBe(`${zone} ${instant} ${expected}`)
    }
  }
  // Read from the file, not Date's fallback: the file gives an offset.
  if (existsSync("/usr/share/zoneinfo/Asia/Kolkata")) expect(zoneOffsetSeconds(Date.parse("2026-06-30T18:45:00Z"), "Asia/Kolkata")).toBe(19800)
})

test("a TZ the files cannot answer falls back to Date", () => {
  expect(zoneOffsetSeconds(Date.now(), "EST5EDT,M3.2.0,M11.1.0")).toBeUndefined()
  expect(zoneOffsetSeconds(Date.now(), "No/Such_Zone")).toBeUndefined()
  expect(localDate(new Date("2026-06-30T12:00:00Z"), "No/Such_Zone")).toMatch(/^2026-06-3\d$/)
})
