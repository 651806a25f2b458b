// The realm's own code is JavaScript evaluated inside each script's vm context; the worker
// imports it as text.
declare module "*.realm.js" {
  const text: string
  export default text
}
