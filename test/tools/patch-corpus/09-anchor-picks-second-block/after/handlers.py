def on_open(event):
    if event is None:
        return
    log(event)


def on_close(event):
    if event is None:
        return
    log(event, closing=True)
