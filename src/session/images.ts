/**
 * Images in sessions: a transcript records each image by where it was read and its SHA-256, never
 * its bytes. Resuming reads each file again — a `--image` file on this machine, a script's image
 * through the executor (so over --ssh, on the remote host) — and keeps it only if its hash is
 * unchanged; otherwise, and for an MCP tool's image (which has no file), the message gets the line
 * `[image <path> no longer available]` instead. A model without image input gets a line saying so
 * for each image of the history.
 */
import type { Executor, ScriptImage } from "../contract.ts"
import { ImageError, loadImageFile } from "../images/load.ts"
import type { ImagePart, Message, Model } from "../providers/model.ts"
import { noImagesReason } from "../agent/script-images.ts"

/** The message as a transcript saves it: its images without their bytes. */
export function savedMessage(message: Message): Message {
  if (message.role === "assistant" || !message.images?.length) return message
  return { ...message, images: message.images.map(({ data: _, ...saved }) => saved as ImagePart) }
}

function label(image: ImagePart): string {
  return image.path ?? `from ${image.tool ?? "an MCP tool"}`
}

/**
 * Gives the history's saved images their bytes again, in place; each image that cannot be had
 * becomes a line of its message's text. Rejects only when `signal` aborts.
 */
export async function restoreImages(history: Message[], model: Model, executor: Executor, signal: AbortSignal): Promise<void> {
  const holders = history.filter((message): message is Exclude<Message, { role: "assistant" }> => message.role !== "assistant" && Boolean(message.images?.length))
  if (!model.imageInput) {
    for (const message of holders) replace(message, () => `not shown: ${noImagesReason(model)}`)
    return
  }
  const limits = model.imageInput
  const wanted = holders.flatMap((message) => message.images!.filter((image) => typeof image.data !== "string"))
  const found = new Map<ImagePart, string>()
  // The --image files, read here.
  for (const image of wanted) {
    if (image.from !== "prompt" || image.path === undefined) continue
    try {
      const loaded = await loadImageFile(image.path, image.path, limits)
      if (loaded.sha256 === image.sha256) found.set(image, loaded.data)
    } catch (error) {
      if (!(error instanceof ImageError)) throw error
    }
  }
  // The scripts' images, read by the executor, all in one script.
  const remote = wanted.filter((image) => image.from === "script" && image.path !== undefined)
  if (remote.length > 0) {
    const read = await readThroughExecutor([...new Set(remote.map((image) => image.path!))], executor, limits, signal)
    for (const image of remote) {
      const again = read.find((candidate) => candidate.path === image.path && candidate.sha256 === image.sha256)
      if (again) found.set(image, again.data)
    }
  }
  for (const message of holders) {
    replace(message, (image) => {
      if (typeof image.data === "string") return undefined
      const data = found.get(image)
      if (data === undefined) return "no longer available"
      image.data = data
      return undefined
    })
  }
}

/** Keeps the images `why` answers undefined for; each other one becomes a line `[image <label> <why>]`. */
function replace(message: Exclude<Message, { role: "assistant" }>, why: (image: ImagePart) => string | undefined): void {
  const kept: ImagePart[] = []
  const lines: string[] = []
  for (const image of message.images ?? []) {
    const reason = why(image)
    if (reason === undefined) kept.push(image)
    else lines.push(`[image ${label(image)} ${reason}]`)
  }
  if (lines.length === 0) return
  const newline = message.content && !message.content.endsWith("\n") ? "\n" : ""
  message.content = `${message.content}${newline}${lines.join("\n")}`
  if (kept.length) message.images = kept
  else delete message.images
}

/** Reads the files with readImage on the executor; a file it cannot read is left out. */
async function readThroughExecutor(paths: string[], executor: Executor, limits: NonNullable<Model["imageInput"]>, signal: AbortSignal): Promise<ScriptImage[]> {
  const images: ScriptImage[] = []
  const script = `for (const path of ${JSON.stringify(paths)}) { try { await readImage({ path }) } catch {} }`
  try {
    for await (const _ of executor.execute({
      script,
      signal,
      onTaskComplete: () => {},
      onSubagent: async () => "",
      images: { ...limits, receive: (image) => images.push(image) },
    })) {
      // The script prints nothing.
    }
  } catch (error) {
    if (signal.aborted) throw error
    // An executor without readImage, or one that failed: its images are no longer available.
  }
  return images
}
