await writeFile({ path: "tools/stats.py", content: `"""Print `tally` output as a table.

Run as `python tools/stats.py report.json`.
"""
import json
import sys

data = json.load(open(sys.argv[1]))
for lang, n in sorted(data.items()):
    print(f"{lang:<12}{n:>8}")
print("total:\t%d" % sum(data.values()))
` })
