export function describe(user: { name: string; age: number }): string {
  return `${user.name} (${user.age})`
}
