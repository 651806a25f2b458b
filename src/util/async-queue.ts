/** A push-driven AsyncIterable: producers push values, then end or fail it; one consumer reads. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = []
  private waiting: (() => void) | undefined
  private ended = false
  private failure: { error: unknown } | undefined

  push(item: T): void {
    if (this.ended) return
    this.items.push(item)
    this.wake()
  }

  end(): void {
    this.ended = true
    this.wake()
  }

  fail(error: unknown): void {
    if (this.ended) return
    this.failure = { error }
    this.end()
  }

  private wake(): void {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.()
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      if (this.items.length > 0) {
        yield this.items.shift()!
        continue
      }
      if (this.ended) {
        if (this.failure) throw this.failure.error
        return
      }
      await new Promise<void>((resolve) => (this.waiting = resolve))
    }
  }
}
