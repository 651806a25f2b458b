package pkg

// Name is the package's name.
const Name = "pkg"
