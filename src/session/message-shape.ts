/**
 * What a transcript's history items must look like before a resume sends them to a model. A
 * transcript is a file anyone may have edited: an item of the wrong shape is named in one line
 * rather than crashing the run, or reaching the provider as something it was not.
 */
import type { Message } from "../providers/model.ts"

const isString = (value: unknown): value is string => typeof value === "string"
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

function imagesProblem(images: unknown): string | undefined {
  if (images === undefined) return undefined
  if (!Array.isArray(images)) return "its images are not a list"
  return images.every((image) => isObject(image) && isString(image.sha256) && isString(image.mediaType) && isString(image.from))
    ? undefined
    : "an image lacks its mediaType, sha256 or from"
}

function partProblem(part: unknown): string | undefined {
  if (!isObject(part)) return "a part of its content is not an object"
  if (part.type === "text" || part.type === "reasoning") return isString(part.text) ? undefined : `a ${part.type} part has no text`
  if (part.type === "tool-call") return isString(part.id) && isString(part.name) ? undefined : "a tool call has no id or name"
  return `a part has an unknown type ${JSON.stringify(part.type)}`
}

/** Why `value` is not a history item, or undefined when it is one. */
export function messageProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "it is not an object"
  switch (value.role) {
    case "user":
      return isString(value.content) ? imagesProblem(value.images) : "its content is not text"
    case "tool":
      if (!isString(value.toolCallId)) return "it names no tool call"
      return isString(value.content) ? imagesProblem(value.images) : "its content is not text"
    case "assistant":
      if (!Array.isArray(value.content)) return "its content is not a list"
      for (const part of value.content) {
        const problem = partProblem(part)
        if (problem) return problem
      }
      return undefined
    default:
      return `its role ${JSON.stringify(value.role)} is not user, assistant or tool`
  }
}

export function isMessage(value: unknown): value is Message {
  return messageProblem(value) === undefined
}
