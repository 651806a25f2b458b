export const id = (prefix: string, n: number) => `${prefix}-${n}`
