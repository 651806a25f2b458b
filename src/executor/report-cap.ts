// A failed script's report as an executor sends it, in pieces, to a client that keeps it for later.

/** A report is a few lines; whatever more a far side sends is not held in memory. */
const REPORT_MAX_CHARS = 1024 * 1024
const REPORT_CUT = "\n[the rest of the report was left out: it is longer than 1 MiB]\n"

export function keepReport(report: string, text: string): string {
  if (report.length > REPORT_MAX_CHARS) return report // cut already
  const joined = report + text.slice(0, REPORT_MAX_CHARS + 1 - report.length)
  return joined.length > REPORT_MAX_CHARS ? joined.slice(0, REPORT_MAX_CHARS) + REPORT_CUT : joined
}
