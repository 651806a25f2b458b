/**
 * Compaction: when the next request would pass the threshold, the older part of the history is
 * replaced by a handoff summary the model writes (a request with no tools), keeping the first user
 * message and the newest turns verbatim. The estimate of a request's size is anchored on what the
 * provider reported for the previous one (its input, cache and output tokens), plus about one token
 * per four characters of what was added since; without a report (a resumed or just-compacted
 * history) the whole request is estimated that way.
 */
import { EXECUTE_TOOL, scriptOf } from "../contract.ts"
import type { Message } from "../providers/model.ts"
import { ModelError } from "../providers/model.ts"

/** Without a known context window (models outside the price table). */
const UNKNOWN_WINDOW = 128_000

/** The default threshold: 80 % of the model's window. */
export function defaultCompactAt(contextWindow: number | null): number {
  return Math.floor((contextWindow ?? UNKNOWN_WINDOW) * 0.8)
}

/** The size the provider reported after `count` history items: the next request's known prefix. */
export interface Anchor {
  count: number
  tokens: number
}

const CHARS_PER_TOKEN = 4
/** Role markers and framing the providers add around each item. */
const TOKENS_PER_ITEM = 20
const TOOL_TOKENS = Math.ceil(JSON.stringify(EXECUTE_TOOL).length / CHARS_PER_TOKEN)

function itemTokens(messages: readonly Message[], from = 0): number {
  let chars = 0
  let images = 0
  for (let i = from; i < messages.length; i++) {
    const message = messages[i]!
    if (message.role === "assistant" || !message.images?.length) chars += JSON.stringify(message).length
    else {
      // An image costs what its pixels do, not its base64 text.
      chars += JSON.stringify({ ...message, images: undefined }).length
      for (const image of message.images) images += imageTokens(image.width, image.height)
    }
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + images + (messages.length - from) * TOKENS_PER_ITEM
}

/**
 * Tokens of an image, as Anthropic counts them (width × height / 750, after scaling to at most
 * 1568 px a side and about 1.15 megapixels); OpenAI's tiles come to about as much.
 */
export function imageTokens(width: number, height: number): number {
  const pixels = Math.max(1, width * height)
  const scale = Math.min(1, 1568 / Math.max(width, height, 1), Math.sqrt(1_150_000 / pixels))
  return Math.ceil((pixels * scale * scale) / 750)
}

/** Estimated input tokens of a request with this system prompt and history. */
export function estimateTokens(system: string, messages: readonly Message[], anchor?: Anchor): number {
  if (anchor && anchor.count <= messages.length) return anchor.tokens + itemTokens(messages, anchor.count)
  return Math.ceil(system.length / CHARS_PER_TOKEN) + TOOL_TOKENS + itemTokens(messages)
}

/** A provider's "the prompt is too long" (HTTP 400/413), which compaction can cure. */
export function isPromptTooLong(error: unknown): boolean {
  if (!(error instanceof ModelError) || error.retryable) return false
  if (error.status === 413) return true
  return /prompt is too long|context[_ ]length|context window|maximum context|too many (input )?tokens|input is too long|request_too_large|exceeds? the (model's )?(context|maximum)/i.test(error.message)
}

export const COMPACTION_SYSTEM =
  "You write handoff summaries of coding sessions. The agent that continues the work will see only the first request, your summary and the newest turns. Answer with the summary alone, in plain text; do not call tools."

const INSTRUCTIONS = `Write a handoff summary of the session above for the agent who continues it. Cover:
- the task and every request or correction from the user;
- what was done: files read, created or changed (exact paths), commands run and what they showed;
- findings, decisions and why they were taken; what failed and why;
- the current state and the next steps.
Keep exact names, paths, identifiers and error messages that matter. Be concise: only what is needed to go on.`

export const SUMMARY_HEADER = "[Summary of the earlier part of this session, written when its history was compacted]"

/** Where the kept tail starts: an assistant message (its tool results follow it), or -1. */
export function tailStart(messages: readonly Message[], keepTokens: number): number {
  let chosen = -1
  for (let i = messages.length - 1; i >= 2; i--) {
    if (messages[i]!.role !== "assistant") continue
    if (chosen !== -1 && itemTokens(messages, i) > keepTokens) break
    chosen = i
  }
  return chosen
}

/** The history to summarise as plain text: long outputs are cut in the middle. */
function renderForSummary(messages: readonly Message[], maxChars: number): string {
  const parts: string[] = []
  for (const message of messages) {
    if (message.role === "user") parts.push(`[user]\n${clip(message.content, 8_000)}${imagesNote(message.images?.length ?? 0)}`)
    else if (message.role === "tool") parts.push(`[script output]\n${clip(message.content, 4_000)}`)
    else {
      for (const item of message.content) {
        if (item.type === "text") parts.push(`[assistant]\n${clip(item.text, 8_000)}`)
        else if (item.type === "tool-call") {
          const script = scriptOf(item.input) ?? JSON.stringify(item.input)
          parts.push(`[assistant ran a script]\n${clip(script, 6_000)}`)
        }
      }
    }
  }
  return clip(parts.join("\n\n"), maxChars)
}

function imagesNote(count: number): string {
  return count === 0 ? "" : `\n[${count === 1 ? "an image was" : `${count} images were`} attached]`
}

export function summaryRequest(older: readonly Message[], compactAt: number): Message[] {
  // The summary request itself must fit: at most about half the threshold of rendered history.
  const rendered = renderForSummary(older, Math.max(8_000, compactAt * CHARS_PER_TOKEN * 0.5))
  return [{ role: "user", content: `<session>\n${rendered}\n</session>\n\n${INSTRUCTIONS}` }]
}

/**
 * The summary as the history keeps it: at most a fifth of the threshold (the kept turns may take
 * 30 %), cut in the middle. A model that writes a summary longer than the history it replaces
 * would otherwise make every later request pass --compact-at and compact again, turn after turn.
 */
export function keptSummary(summary: string, compactAt: number): string {
  return clip(summary, Math.max(4_000, Math.floor(compactAt * CHARS_PER_TOKEN * 0.2)))
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text
  const half = Math.floor(max / 2)
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`
}
