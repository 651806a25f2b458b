/** Messages between the executor (main thread) and a sandbox worker. */

export type ToMain =
  | { type: "output"; runId: number; text: string }
  | { type: "call"; runId: number; callId: number; tool: string; params: string | undefined }
  /**
   * `sent`: the worker's output counter (characters, modulo 2^32) when the script ended. Not
   * `reusable` when the engine may still call the script's code (see bootstrap.realm.js).
   */
  | { type: "done"; runId: number; sent: number; reusable: boolean }
  /**
   * `output` is the full report for the model; `error` the one-line reason. Not `reusable` when
   * the script may still be running (an error escaped it from a timer or an unhandled promise).
   */
  | { type: "failed"; runId: number; error: string; output: string; sent: number; reusable: boolean }
  /** After a script's end, once the worker's event loop turned: nothing the script left is still running. */
  | { type: "idle" }

/** A script's tool globals; those in `spread` pass all their arguments, as an array. */
export interface Tools {
  toolNames: string[]
  spread: string[]
}

export type ToWorker =
  /**
   * `acked`: [0] counts output characters the main thread has taken, [1] is the start claim of
   * the run last posted (0 posted, 1 the worker started it, -1 the main thread gave up on it);
   * `window`: how far ahead to run;
   * `tools`: those its first script will likely get (a realm is made for them ahead).
   */
  | { type: "init"; acked: Int32Array<SharedArrayBuffer>; window: number; tools: Tools }
  | ({ type: "run"; runId: number; script: string } & Tools)
  | { type: "result"; runId: number; callId: number; ok: true; value: string | undefined }
  | { type: "result"; runId: number; callId: number; ok: false; error: string }
