export const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
export const describeSum = (xs: number[]) => `sum of ${xs.length} numbers: ${sum(xs)}`
