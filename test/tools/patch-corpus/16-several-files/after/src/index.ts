import { a } from "./a"
import { c } from "./c"

export { a, c }
