/** Messages between the executor (main thread) and a sandbox worker. */

export type ToMain =
  | { type: "output"; runId: number; text: string }
  | { type: "call"; runId: number; callId: number; tool: string; params: string | undefined }
  | { type: "done"; runId: number }
  /** `output` is the full report for the model; `error` the one-line reason. */
  | { type: "failed"; runId: number; error: string; output: string }

export type ToWorker =
  | { type: "init"; toolNames: string[] }
  | { type: "run"; runId: number; script: string }
  | { type: "result"; runId: number; callId: number; ok: true; value: string | undefined }
  | { type: "result"; runId: number; callId: number; ok: false; error: string }
