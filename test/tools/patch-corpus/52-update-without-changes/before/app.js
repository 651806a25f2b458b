const x = 1
