await writeFile({ path: "src/messages.ts", content: `export const messages = {
  hello: (name: string) => `Hello, ${name}`,
  bye: (name: string) => `Bye, ${name}`}
` })
