const CODE_SPAN = /`([^`]+)`/g

export function stripCode(text: string): string {
  return text.replace(CODE_SPAN, (_, code: string) => code)
}
