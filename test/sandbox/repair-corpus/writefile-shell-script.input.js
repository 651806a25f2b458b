await writeFile({ path: "scripts/release.sh", content: `#!/usr/bin/env bash
set -euo pipefail
version=`git describe --tags`
out="${OUT_DIR:-dist}/app-${version}.tar.gz"
tar czf "$out" build/
echo "wrote $out"
` })
console.log("written")
