const name = "deploy"
await writeFile({ path: `scripts/${name}.sh`, content: `#!/usr/bin/env bash
set -euo pipefail
tag=`git rev-parse --short HEAD`
docker build -t "app:${tag}" .
` })
console.log(`wrote scripts/${name}.sh`)
