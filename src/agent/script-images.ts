/**
 * The images one script shows the model (readImage, MCP tools): taken within the model's limits,
 * kept in order, and put after the script's output, each announced by a line in that output (so
 * the user's view of the output and the model's say the same).
 */
import type { ExecuteOptions, ScriptImage } from "../contract.ts"
import type { ImagePart, Model } from "../providers/model.ts"

/**
 * More than this in one script are not shown: every later request carries them all, and the APIs
 * limit images per request (Anthropic: 100, and 2000 px a side past 20).
 */
export const MAX_IMAGES_PER_SCRIPT = 20

const KIND: Record<ImagePart["mediaType"], string> = {
  "image/png": "PNG",
  "image/jpeg": "JPEG",
  "image/gif": "GIF",
  "image/webp": "WebP",
}

/** Why a model gets no images, as readImage reports it. */
export function noImagesReason(model: Model): string {
  return `${model.provider}/${model.id} does not take images; describe what you need in text instead`
}

export class ScriptImages {
  readonly images: ImagePart[] = []
  private readonly notes: string[] = []

  constructor(private readonly model: Model) {}

  /** What the execute is told about images. */
  get policy(): NonNullable<ExecuteOptions["images"]> {
    const input = this.model.imageInput
    if (!input) return { refused: noImagesReason(this.model) }
    return { ...input, receive: (image) => this.receive(image) }
  }

  private receive(image: ScriptImage): void {
    const label = image.path ?? `the image of ${image.tool ?? "a tool"}`
    if (this.images.length >= MAX_IMAGES_PER_SCRIPT) {
      this.notes.push(`[image not shown: ${label}; a script shows at most ${MAX_IMAGES_PER_SCRIPT} images]`)
      return
    }
    // The executor was told the limits; one on another host may not keep them, and an image the
    // API refuses would fail every later request of the run.
    if (!this.fits(image)) {
      this.notes.push(`[image not shown: ${label}; it is larger than ${this.model.provider}/${this.model.id} takes]`)
      return
    }
    this.images.push({
      mediaType: image.mediaType,
      data: image.data,
      sha256: image.sha256,
      width: image.width,
      height: image.height,
      ...(image.path === undefined ? {} : { path: image.path }),
      from: image.tool === undefined ? "script" : "mcp",
      ...(image.tool === undefined ? {} : { tool: image.tool }),
    })
    this.notes.push(`[image shown after this output: ${label} (${image.width}×${image.height} ${KIND[image.mediaType]})]`)
  }

  private fits(image: ScriptImage): boolean {
    const limits = this.model.imageInput
    if (!limits) return false
    const padding = image.data.endsWith("==") ? 2 : image.data.endsWith("=") ? 1 : 0
    const bytes = Math.floor((image.data.length * 3) / 4) - padding
    const side = Math.max(image.width, image.height)
    return bytes <= limits.maxBytes && (limits.maxSide === undefined || side <= limits.maxSide)
  }

    /** The script's output with a line for each image it showed. */
  annotate(output: string): string {
    if (this.notes.length === 0) return output
    const newline = output && !output.endsWith("\n") ? "\n" : ""
    return `${output}${newline}${this.notes.join("\n")}`
  }
}
