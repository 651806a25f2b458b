export const a = 1
export const label = `a is ${a}`
