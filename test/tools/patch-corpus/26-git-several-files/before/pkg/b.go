package pkg

const Name = "b"
