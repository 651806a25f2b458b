await taskComplete(String.raw`Fixed path handling on Windows.

- `normalizePath` now turns `C:\Users\ada\repo` into `C:/Users/ada/repo` before matching globs
- `toGlob("src\**\*.ts")` no longer escapes the backslashes twice
- added tests in `test/paths.test.ts` (`bun test test/paths.test.ts` passes)`)
