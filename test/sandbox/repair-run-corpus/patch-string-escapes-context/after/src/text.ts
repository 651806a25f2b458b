export const lines = (text: string) => text.split("\n")
export const words = (text: string) => text.trim().split(/\s+/).filter(Boolean)
export const quote = (text: string) => `"${text.replace(/"/g, '\\"')}"`
export const indent = (text: string) => lines(text).map((line) => `\t${line}`).join("\n")
