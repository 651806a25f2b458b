/** Whether `promise` settles (either way) within `ms`; the timer does not outlive the wait. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)))
  const settled = promise.then(
    () => true,
    () => true,
  )
  const result = await Promise.race([settled, timeout])
  clearTimeout(timer)
  return result
}
