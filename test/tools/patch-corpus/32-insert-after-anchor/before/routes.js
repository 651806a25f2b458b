const routes = [
  "/",
  "/about",
]
