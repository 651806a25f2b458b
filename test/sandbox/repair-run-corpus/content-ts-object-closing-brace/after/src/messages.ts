export const messages = {
  hello: (name: string) => `Hello, ${name}`,
  bye: (name: string) => `Bye, ${name}`}
