export const farewell = (name: string) => `Bye, ${name}.`
