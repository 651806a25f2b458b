import { a } from "./a"
import { b } from "./b"

export { a, b }
