export const lines = (text: string) => text.split("\n")
export const words = (text: string) => text.split(/\s+/)
export const quote = (text: string) => `"${text.replace(/"/g, '\\"')}"`
