import os


def home():
    return os.environ["HOME"]


def tmp():
    import tempfile
    return tempfile.gettempdir()
