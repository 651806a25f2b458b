import { chown } from "node:fs/promises"

/**
 * Gives a temp file the owner of the file it is about to replace: clanka run as root (a container,
 * CI) would otherwise leave a user's files owned by root. Only root can, and others need not.
 */
export async function keepOwner(temp: string, owner: { uid: number; gid: number }): Promise<void> {
  if (process.getuid?.() !== 0) return
  await chown(temp, owner.uid, owner.gid).catch(() => {})
}
