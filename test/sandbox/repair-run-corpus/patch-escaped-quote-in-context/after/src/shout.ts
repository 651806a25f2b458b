export const shout = (word: string) => console.log(`say "${word.toUpperCase()}"`)
