/**
 * `clanka run --input ndjson`: another program drives the agent through stdin, one JSON object a
 * line, and reads the usual `--json` events on stdout.
 *
 *   {"type":"prompt","text":"…"}   a run; one sent while another runs waits its turn. Every run
 *                                  goes on from the same history (one session).
 *   {"type":"steer","text":"…"}    a message for the running run (it cuts the model's stream at
 *                                  the next block end, as typing does in a conversation)
 *   {"type":"cancel"}              stops the running run: it ends with AgentError exit 130, and
 *                                  the next prompt (if any) starts
 *
 * A line that is none of these (or longer than 8 MiB) is answered with one `InputError {message,
 * line}` event and reading goes on. While 1,000 prompts (or 64 MiB of them) wait their turn,
 * reading pauses, holding the writer rather than memory. Only "\n" ends a line (not U+2028 or a
 * lone "\r", which JSON holds raw). The end of input lets the running and waiting prompts finish; the exit code is
 * the last run's (2 when the input held no prompt at all).
 */
import type { Agent } from "../agent/agent.ts"
import type { AgentEvent } from "../agent/events.ts"
import { ExitCode, UsageError } from "../errors.ts"
import { jsonLine } from "../output/json-line.ts"
import type { Interrupt } from "./interrupt.ts"
import { consumeEvents } from "./consume-events.ts"
import type { Sink } from "../output/sink.ts"
import type { ImagePart } from "../providers/model.ts"
import { type Frame, readFrames } from "../protocol/framing.ts"

/**
 * The longest input line read: a longer one is refused and skipped up to its newline without being
 * held, so no input can exhaust memory. A prompt this long fits no model's context window.
 */
const MAX_INPUT_LINE_BYTES = 8 * 1024 * 1024

/**
 * How many prompts, and how much of their text, may wait for their turn: past either, reading
 * stops until a waiting prompt starts, so the writer is held (a pipe fills) instead of this
 * process's memory. Lines behind them (a cancel, a steer) are read then.
 */
const MAX_WAITING_PROMPTS = 1000
const MAX_WAITING_CHARS = 64 * 1024 * 1024

/** A line the driver could not use: printed on stdout among the events. */
export interface InputError {
  _tag: "InputError"
  message: string
  /** Its line number in the input, from 1. */
  line: number
}

type Command = { type: "prompt" | "steer"; text: string } | { type: "cancel" }

/**
 * Whether `--input ndjson` was given; refuses what cannot go with it (a PROMPT argument, an
 * output format other than ndjson).
 */
export function ndjsonInput(input: string | undefined, prompt: string | undefined, output: string | undefined): boolean {
  if (input === undefined) return false
  if (input !== "ndjson") throw new UsageError(`unknown input format "${input}": --input takes ndjson`)
  if (prompt !== undefined) throw new UsageError("--input ndjson reads the prompts from stdin; drop the PROMPT argument")
  if (output !== undefined && output !== "ndjson") throw new UsageError(`--input ndjson writes --json events; drop --output ${output}`)
  return true
}

/** Parses one input line: a command, or what is wrong with it. */
export function parseCommand(text: string): Command | string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return `not JSON: ${(error as Error).message}`
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return 'not a JSON object; send {"type":"prompt"|"steer"|"cancel", "text": …}'
  const { type, text: body } = value as { type?: unknown; text?: unknown }
  if (type === "cancel") return { type }
  if (type === "prompt" || type === "steer") {
    if (typeof body !== "string") return `a ${type} needs "text", a string`
    if (!body.trim()) return `the ${type}'s "text" is empty`
    return { type, text: body }
  }
  return `unknown "type" ${JSON.stringify(type) ?? "(none)"}: use "prompt", "steer" or "cancel"`
}

export interface InputOptions {
  input?: NodeJS.ReadableStream
  /** Where InputError lines go: the events' stdout. */
  out?: Sink
  /** --image: shown to the model with the first prompt. */
  images?: ImagePart[]
}

export async function driveFromInput(agent: Agent, print: (event: AgentEvent) => void, interrupt: Interrupt, options: InputOptions = {}): Promise<number> {
  const out = options.out ?? process.stdout
  let images = options.images
  const waiting: string[] = []
  let waitingChars = 0
  /** Called when a waiting prompt starts (room in the queue again). */
  let room = () => {}
  /** The running prompt, and the input lines of the steers sent to it. */
  let current: { controller: AbortController; done: Promise<void>; steers: number[] } | undefined
  let last: number | undefined
  let lineNumber = 0
  const refuse = (message: string, line = lineNumber) => {
    const error: InputError = { _tag: "InputError", message: `input line ${line}: ${message}`, line }
    out.write(`${jsonLine(error)}\n`)
  }

  const next = () => {
    if (current || interrupt.signal.aborted) return
    const prompt = waiting.shift()
    if (prompt === undefined) return
    waitingChars -= prompt.length
    room()
    const controller = new AbortController()
    const signal = AbortSignal.any([controller.signal, interrupt.signal])
    const steers: number[] = []
    // A steer that came too late for this run (its last script was running) is said to be lost.
    const onUndelivered = (messages: string[]) => {
      for (const line of steers.slice(-messages.length)) refuse("the prompt ended before this steer reached the model; send it again as a prompt", line)
    }
    const send = agent.send(prompt, { signal, onUndelivered, ...(images ? { images } : {}) })
    images = undefined
    const done = consumeEvents(send, print, interrupt).then((code) => {
      last = code
      current = undefined
      next()
    })
    current = { controller, done, steers }
  }

  /** One line of the input, numbered from 1 (blank ones too). */
  const handle = (frame: Frame) => {
    lineNumber++
    if (!("line" in frame)) return refuse(`the line is longer than ${MAX_INPUT_LINE_BYTES / 1024 / 1024} MiB, the most one line may hold; it was skipped`)
    // A byte order mark (PowerShell and .NET writers put one first) is not part of the line.
    const text = lineNumber === 1 ? frame.line.replace(/^\ufeff/, "") : frame.line
    if (!text.trim()) return
    const command = parseCommand(text)
    if (typeof command === "string") refuse(command)
    else if (command.type === "prompt") {
      waiting.push(command.text)
      waitingChars += command.text.length
      next()
    } else if (command.type === "steer") {
      if (current && !current.controller.signal.aborted) {
        current.steers.push(lineNumber)
        agent.steer(command.text)
      } else refuse(current ? "the running prompt is being cancelled; send a prompt" : "nothing is running to steer; send a prompt")
    } else current?.controller.abort()
  }

  const input = options.input ?? process.stdin
  const frames = readFrames(input as AsyncIterable<Uint8Array | string>, MAX_INPUT_LINE_BYTES, true)[Symbol.asyncIterator]()
  // SIGINT/SIGTERM stop the reading too, also while it waits for a line that may never come.
  let stop = () => {}
  const stopped = new Promise<"stopped">((resolve) => (stop = () => resolve("stopped")))
  if (interrupt.signal.aborted) stop()
  interrupt.signal.addEventListener("abort", stop, { once: true })
  try {
    while (true) {
      while (waiting.length >= MAX_WAITING_PROMPTS || waitingChars >= MAX_WAITING_CHARS) {
        if ((await Promise.race([new Promise<void>((resolve) => (room = resolve)), stopped])) === "stopped") break
      }
      const step = await Promise.race([frames.next(), stopped])
      if (step === "stopped") {
        ;(input as NodeJS.ReadableStream & { destroy?(): void }).destroy?.()
        break
      }
      if (step.done) break
      handle(step.value)
    }
  } finally {
    interrupt.signal.removeEventListener("abort", stop)
  }
  // End of input: what was asked for still runs, one after another.
  while (current) await current.done
  if (interrupt.signal.aborted) return ExitCode.interrupted
  if (last === undefined) throw new UsageError('--input ndjson: the input held no prompt; send {"type":"prompt","text":"…"} lines on stdin')
  return last
}
