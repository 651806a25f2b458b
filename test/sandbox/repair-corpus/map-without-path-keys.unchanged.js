const labels = { bug: `Fix `parse``, docs: `Docs` }
for (const [name, text] of Object.entries(labels)) console.log(name, text)
