export const a = (x: number) => `a=${x}`
