import { expect, test } from "bun:test"
import { estimateTokens, imageTokens } from "../../src/agent/compaction.ts"
import type { Message } from "../../src/providers/model.ts"

test("an image counts by its pixels in the estimate that decides compaction, not by its base64 text", () => {
  const data = "A".repeat(2_000_000)
  const withImage: Message[] = [
    { role: "user", content: "look", images: [{ mediaType: "image/png", data, sha256: "0".repeat(64), width: 800, height: 600, path: "/x.png", from: "prompt" }] },
  ]
  const without: Message[] = [{ role: "user", content: "look" }]
  expect(estimateTokens("system", withImage) - estimateTokens("system", without)).toBe(imageTokens(800, 600))
  // Anthropic's count: 800 × 600 / 750; a large image is scaled to about 1.15 megapixels first.
  expect(imageTokens(800, 600)).toBe(640)
  expect(imageTokens(4000, 3000)).toBeGreaterThan(1400)
  expect(imageTokens(4000, 3000)).toBeLessThanOrEqual(1534)
})
