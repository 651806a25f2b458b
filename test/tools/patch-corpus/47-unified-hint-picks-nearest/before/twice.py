if ok:
    go()

# part two

if ok:
    go()
