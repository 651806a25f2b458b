/**
 * readImage: a script shows the model an image file. The executor reads the file (so over --ssh,
 * the remote's), checks it against the model's limits, and hands it to the agent, which puts it
 * after the script's output; the script gets a handle that says what was shown.
 */
import * as v from "valibot"
import { ToolError } from "../errors.ts"
import { ImageError, loadImageFile, MAX_IMAGE_BYTES } from "../images/load.ts"
import { resolvePath } from "./fs.ts"
import { defineTool, type Tool } from "./tool.ts"

export const ImageHandleSchema = v.object({
  path: v.string(),
  mediaType: v.picklist(["image/png", "image/jpeg", "image/gif", "image/webp"]),
  width: v.number(),
  height: v.number(),
  bytes: v.number(),
})

export const imageTools: Tool[] = [
  defineTool({
    name: "readImage",
    keepsIndex: true,
    description: "Look at an image file (PNG, JPEG, GIF, WebP): you see it after this script's output.",
    params: v.object({ path: v.string() }),
    result: ImageHandleSchema,
    run: async ({ path }, ctx) => {
      const images = ctx.images
      if (images && "refused" in images) throw new ToolError(`readImage: ${images.refused}`)
      const target = resolvePath(ctx, path, "readImage")
      let image
      try {
        image = await loadImageFile(target, path, images ?? { maxBytes: MAX_IMAGE_BYTES })
      } catch (error) {
        if (error instanceof ImageError) throw new ToolError(`readImage: ${error.message}`)
        throw error
      }
      const { bytes, ...shown } = image
      images?.receive({ ...shown, path: target })
      return { path: target, mediaType: image.mediaType, width: image.width, height: image.height, bytes }
    },
  }),
]
