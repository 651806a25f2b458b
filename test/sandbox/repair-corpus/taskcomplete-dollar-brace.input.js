await taskComplete(`Replaced string concatenation with template literals such as `${user.name}` in 4 files.`)
