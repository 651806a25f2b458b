// Whether a script compiles, without running it: the test every step of the repair relies on.
import { errorMessage } from "../util/error-message.ts"

const AsyncFunction = (async () => {}).constructor as new (body: string) => unknown

/** Does the script compile as the body of an async function? Nothing is run. */
export function parses(script: string): boolean {
  return parseError(script) === null
}

/** The message of the SyntaxError the script raises when compiled, or null if it compiles. */
export function parseError(script: string): string | null {
  try {
    new AsyncFunction(script)
    return null
  } catch (error) {
    return errorMessage(error)
  }
}
