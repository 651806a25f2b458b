#!/usr/bin/env bash
set -euo pipefail

version="${1:?usage: release.sh VERSION}"
files=("${@:2}")
echo "releasing ${version} with ${#files[@]} extra files"
commit=`git rev-parse HEAD`
tar czf "dist/app-${version}.tar.gz" \
  --exclude='*.map' \
  build/ "${files[@]}"
printf '%s\n' "done: ${commit}"
