await writeFile({ path: "notes/cmd.md", content: ``make check` runs every test; before a release also run `make dist`` })
