await writeFile({ path: "scripts/backup.sh", content: `#!/bin/sh
# Copies the data directory to \\`\\${BACKUP_DIR}\\`.
cp -r data "\\${BACKUP_DIR:-/tmp/backup}/"
` })
