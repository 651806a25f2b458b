import { c } from "../src/c"
test("c", () => expect(c).toBe(3))
