DEBUG = False
x = 2
y = 3
