await writeFile({ path: "fix.sh", content: `sed -E 's/(v[0-9]+)/`\1-fixed`/' "${1}"
` })
