const routes = [
  "/login",
  "/",
  "/about",
]
