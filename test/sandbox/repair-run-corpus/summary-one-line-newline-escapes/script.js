await taskComplete(`Done.\n\n- Fixed `a` in \`b.ts\`\n- Added `c` tests\n\nAll green.`)
