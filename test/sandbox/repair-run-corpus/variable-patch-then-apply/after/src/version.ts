export const VERSION = "1.2.0"
export const COMMIT = "abc1234def"
export const banner = `tally ${VERSION} (${COMMIT.slice(0, 7)})`
