const routes = [
  "/",
]
