// The words a chunk is indexed under and a query is searched with. Code names things in compound
// identifiers (parseHttpRequest, MAX_RETRY_COUNT, utf8Decode); a natural-language query names the
// same thing in separate words. Each identifier is indexed whole (lowercased) and as its parts,
// split on camelCase, snake_case and digits, so "parse http request" and "parseHttpRequest" meet.
// SQLite's porter stemmer then folds "parsing"/"parses"/"parse" together.

const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+/g

/** parseHTTPRequest2Body → ["parse", "http", "request", "2", "body"]; lowercased. */
export function splitIdentifier(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([A-Za-z])([0-9])/g, "$1 $2")
    .replace(/([0-9])([A-Za-z])/g, "$1 $2")
    .split(/[\s_$]+/)
    .filter((part) => part !== "")
    .map((part) => part.toLowerCase())
}

/** The words of `text`: each identifier lowercased, then its parts when it has more than one. */
export function indexWords(text: string): string {
  const out: string[] = []
  for (const match of text.matchAll(IDENTIFIER)) {
    const word = match[0]
    const parts = splitIdentifier(word)
    const whole = parts.join("")
    if (whole.length > 1 && whole.length <= 64) out.push(whole)
    if (parts.length > 1) for (const part of parts) if (part.length > 1) out.push(part)
  }
  return out.join(" ")
}

/** Words too common in questions about code to tell chunks apart. */
const STOPWORDS = new Set(
  (
    "a an and are as at be by can code do does for from get gets how i if in into is it its me of on or " +
    "our should so that the their them then there these this those to use used uses using was we what " +
    "when where which who why will with would you your find show see look looking want need where's " +
    "implemented implementation implements handled handles handle logic part place happen happens thing things"
  ).split(" "),
)

/**
 * The FTS5 query for a natural-language query: every meaningful word and identifier part, each
 * quoted (so no word is read as FTS5 syntax), joined with OR; BM25 rewards chunks matching more of
 * them. Undefined when nothing searchable is left.
 */
export function ftsQuery(query: string): string | undefined {
  const terms = queryTerms(query)
  return terms.length === 0 ? undefined : ftsOf(terms)
}

export function ftsOf(terms: readonly string[]): string {
  return terms.map((term) => `"${term}"`).join(" OR ")
}

export function queryTerms(query: string): string[] {
  const terms = new Set<string>()
  for (const match of query.matchAll(IDENTIFIER)) {
    const parts = splitIdentifier(match[0])
    const whole = parts.join("")
    if (parts.length > 1) terms.add(whole)
    for (const part of parts) if (part.length > 1 && !STOPWORDS.has(part)) terms.add(part)
    if (parts.length === 1 && whole.length === 1) continue
  }
  // A query of stop words only still searches for them rather than for nothing.
  if (terms.size === 0) for (const match of query.matchAll(IDENTIFIER)) if (match[0].length > 1) terms.add(match[0].toLowerCase())
  return [...terms]
}

/** Words of a relative path: src/httpClient/request_parser.ts → "src http client request parser ts …". */
export function pathWords(relPath: string): string {
  return indexWords(relPath.replace(/[/.\-]/g, " "))
}
