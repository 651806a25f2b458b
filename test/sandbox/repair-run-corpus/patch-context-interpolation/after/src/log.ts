export function describe(user: { name: string; age: number }): string {
  const age = user.age === 1 ? "1 year" : `${user.age} years`
  return `${user.name} (${age})`
}
