import os


def home():
    return os.environ["HOME"]


def tmp():
    return "/tmp"
