const out = await bash({ command: `echo "today is `date +%A`"` })
console.log(out)
