/**
 * An ACP prompt (content blocks) as clanka's prompt: the text blocks run on as one text (an
 * editor interleaves them with its mentions); a resource link or an embedded resource (a file the
 * editor attached) stands there as its path (or URI), and an embedded one's text follows the
 * prompt, tagged with its URI; an image (or an embedded image resource) is checked against the
 * model's limits like `--image`.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk"
import { fileURLToPath } from "node:url"
import { checkImage, ImageError } from "../images/load.ts"
import type { ImagePart, Model } from "../providers/model.ts"

/** A prompt the agent cannot take (an audio block, an image for a model without image input). */
export class PromptError extends Error {
  override name = "PromptError"
}

export interface Prompt {
  text: string
  images: ImagePart[]
}

/** A file: URI as a path; another URI as it is. */
function where(uri: string): string {
  if (!uri.startsWith("file:")) return uri
  try {
    return fileURLToPath(uri)
  } catch {
    return uri
  }
}

export function promptOf(blocks: readonly ContentBlock[], model: Model): Prompt {
  let inline = ""
  const attached: string[] = []
  const images: ImagePart[] = []
  const image = (data: string, uri: string | null | undefined, index: number) => {
    const limits = model.imageInput
    if (!limits) throw new PromptError(`${model.provider}/${model.id} does not take images; choose a model that does, or leave the image out`)
    const shown = uri ? where(uri) : `image ${index + 1}`
    try {
      const { bytes: _, ...loaded } = checkImage(new Uint8Array(Buffer.from(data, "base64")), shown, limits)
      // A file the editor named is read again when the session is resumed later.
      const path = uri?.startsWith("file:") ? where(uri) : undefined
      images.push({ ...loaded, ...(path ? { path } : {}), from: "prompt" })
    } catch (error) {
      if (error instanceof ImageError) throw new PromptError(error.message)
      throw error
    }
  }
  for (const [index, block] of blocks.entries()) {
    switch (block.type) {
      case "text":
        inline += block.text
        break
      case "image":
        image(block.data, block.uri, index)
        break
      case "resource_link":
        inline += where(block.uri)
        break
      case "resource": {
        const resource = block.resource
        if ("text" in resource) {
          inline += where(resource.uri)
          attached.push(`<resource uri="${resource.uri}">\n${resource.text.replace(/\n?$/, "\n")}</resource>`)
        } else if (resource.mimeType?.startsWith("image/")) image(resource.blob, resource.uri, index)
        else inline += `${where(resource.uri)} (${resource.mimeType ?? "binary"}, not shown)`
        break
      }
      case "audio":
        throw new PromptError("clanka does not take audio; leave it out of the prompt")
    }
  }
  const text = [inline.trim(), ...attached].filter(Boolean).join("\n\n")
  if (!text && images.length === 0) throw new PromptError("the prompt is empty")
  // An image alone still needs words for the model's turn.
  return { text: text || "(see the image)", images }
}
