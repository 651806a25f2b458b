def f():
    pass

def h():
    pass
