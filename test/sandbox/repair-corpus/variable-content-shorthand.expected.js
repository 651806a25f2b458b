const content = `#!/bin/sh
# prints the current branch
echo "branch: \`git rev-parse --abbrev-ref HEAD\`"
`
await writeFile({ path: "bin/branch", content })
