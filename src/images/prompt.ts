/**
 * `clanka run --image FILE`: the files read and checked before the executor starts or any request
 * goes out, so a file the model cannot take is one usage error (exit 2).
 */
import { resolve } from "node:path"
import { UsageError } from "../errors.ts"
import type { ImagePart, Model } from "../providers/model.ts"
import { ImageError, loadImageFile } from "./load.ts"

/** The images as the first prompt carries them; `files` are relative to the current directory. */
export async function loadPromptImages(files: readonly string[], model: Model): Promise<ImagePart[]> {
  const limits = model.imageInput
  if (!limits) throw new UsageError(`--image: ${model.provider}/${model.id} does not take images; choose a model that does, or leave the image out`)
  const images: ImagePart[] = []
  for (const file of files) {
    if (file === "") throw new UsageError("--image: the file name is empty")
    const path = resolve(file)
    try {
      const { bytes: _, ...image } = await loadImageFile(path, file, limits)
      images.push({ ...image, path, from: "prompt" })
    } catch (error) {
      if (error instanceof ImageError) throw new UsageError(`--image: ${error.message}`)
      throw error
    }
  }
  return images
}
