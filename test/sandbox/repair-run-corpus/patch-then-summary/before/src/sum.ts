export const sum = (xs: number[]) => xs.reduce((a, b) => a + b)
