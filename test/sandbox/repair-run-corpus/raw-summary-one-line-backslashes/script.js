await taskComplete(String.raw`Config is now read from `%APPDATA%\acme\config.json` on Windows (was `C:\acme\config.json`); `\n` in `greeting` is kept as typed.`)
