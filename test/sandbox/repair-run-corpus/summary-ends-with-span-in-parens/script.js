await taskComplete(`Fixed the crash on empty input (see `parse`)`)
