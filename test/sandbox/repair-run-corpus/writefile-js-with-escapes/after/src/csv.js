// Splits one CSV line; quotes may hold commas and "" for a quote.
export function splitLine(line) {
  const cells = line.match(/("(?:[^"]|"")*"|[^,]*)(,|$)/g) ?? []
  return cells.map((cell) => cell.replace(/,$/, "").replace(/^"|"$/g, "").replace(/""/g, '"'))
}

export const toLine = (cells) => cells.map((c) => `"${String(c).replace(/"/g, '""')}"`).join(",") + "\r\n"
