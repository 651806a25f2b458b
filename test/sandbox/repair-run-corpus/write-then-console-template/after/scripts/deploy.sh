#!/usr/bin/env bash
set -euo pipefail
tag=`git rev-parse --short HEAD`
docker build -t "app:${tag}" .
