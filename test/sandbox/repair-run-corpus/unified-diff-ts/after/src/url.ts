export function repoUrl(owner: string, name: string): string {
  return `https://github.com/${owner}/${name}`
}
