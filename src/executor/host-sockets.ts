/**
 * With the network off, the sandbox's own network namespace keeps scripts from the host's ports
 * and abstract unix sockets, but a unix socket with a path is a file: reachable through the
 * read-only root (docker.sock, an ssh agent, D-Bus). Each one bound when the sandbox starts is
 * covered with /dev/null, so connect() is refused. Sockets bound later, or bound in another network
 * namespace (a container's), are not listed and stay reachable.
 */
import { lstatSync, readFileSync } from "node:fs"
import { isUnder, realPath, seenInside } from "./sandbox-paths.ts"

/**
 * The paths of the pathname unix sockets bound in this network namespace, as /proc/net/unix lists
 * them (read outside the sandbox), with symlinks resolved; only those that exist as sockets.
 */
export function hostSockets(table = "/proc/net/unix"): string[] {
  let text: string
  try {
    text = readFileSync(table, "utf8")
  } catch {
    return []
  }
  const paths = new Set<string>()
  for (const line of text.split("\n").slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the rest (it may hold spaces).
    const fields = line.trim().split(/\s+/)
    if (fields.length < 8) continue
    const path = fields.slice(7).join(" ")
    // "@name" is abstract (per network namespace, so already out of reach); a relative path cannot be placed.
    if (!path.startsWith("/")) continue
    const real = realPath(path)
    if (real && isSocket(real)) paths.add(real)
  }
  return [...paths].sort()
}

function isSocket(path: string): boolean {
  try {
    return lstatSync(path).isSocket()
  } catch {
    return false
  }
}

/**
 * bwrap arguments covering each host socket seen inside the sandbox. `bound`: the binds so far;
 * `hiddenDirs`: directories already emptied (a socket there is gone, unless bound back in `shown`).
 */
export function coverHostSockets(options: { bound: readonly string[]; hiddenDirs: readonly { dir: string; shown: readonly string[] }[]; sockets?: string[] }): string[] {
  const args: string[] = []
  for (const socket of options.sockets ?? hostSockets()) {
    if (!seenInside(socket, options.bound)) continue
    if (options.hiddenDirs.some(({ dir, shown }) => isUnder(socket, dir) && !shown.some((path) => isUnder(socket, path)))) continue
    args.push("--ro-bind", "/dev/null", socket)
  }
  return args
}
