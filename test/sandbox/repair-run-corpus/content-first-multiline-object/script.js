await writeFile({
  content: `export const routes = {
  user: (id: string) => `/users/${id}`,
  repo: (owner: string, name: string) => `/repos/${owner}/${name}`,
}
`,
  path: "src/routes.ts",
})
