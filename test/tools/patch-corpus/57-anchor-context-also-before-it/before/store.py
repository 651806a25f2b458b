def load():
    data = read()

    return data

def save():
    data = read()
    write(data)
