await writeFile({ path: "README.md", content: `# tally

Counts lines of code per language.

## Usage

```sh
npm install -g tally
tally src/
```

Pass `--json` to get machine-readable output, or `--exclude <glob>` to skip files.
` })
console.log("README written")
