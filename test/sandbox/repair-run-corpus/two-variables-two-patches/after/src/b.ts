export const b = (y: string) => `b=${y.trim()}`
