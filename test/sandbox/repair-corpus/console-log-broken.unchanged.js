const name = "clanka"
console.log(`Run `${name} --help` for usage`)
