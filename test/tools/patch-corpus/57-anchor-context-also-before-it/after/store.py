def load():
    data = read()

    return data

def save():
    data = read_all()
    write(data)
