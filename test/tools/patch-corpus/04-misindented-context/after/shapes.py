class Circle:
    def __init__(self, r):
        self.r = r

    def area(self):
        import math
        return math.pi * self.r ** 2
