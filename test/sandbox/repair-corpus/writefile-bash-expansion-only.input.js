await writeFile({ path: "env.sh", content: `export PORT=${PORT:-8080}
export ARGS="${@}"
` })
