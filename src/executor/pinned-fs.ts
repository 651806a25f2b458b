/**
 * File operations that never follow a symlink, for clanka's own writes outside the sandbox in a
 * directory that sandboxed processes may be changing at the same moment (the protected paths put
 * back: landlock-protect.ts). A path there is not to be trusted from one call to the next: a
 * script can swap a directory on it for a symlink to anywhere between clanka's check and its
 * write. So each directory on the way is opened with O_NOFOLLOW and held open, and the next step
 * names its entry relative to it (`/proc/self/fd/N/NAME`): a component swapped meanwhile is
 * refused, never followed, and files are created only where nothing is (O_EXCL | O_NOFOLLOW).
 * Linux only (procfs), as the sandboxes that need it.
 */
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, renameSync, rmdirSync, symlinkSync, unlinkSync, writeSync } from "node:fs"

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants
/** node:fs does not export it (the same on x86-64 and arm64). */
const O_PATH = 0o10000000

/** Another process may keep putting something in the way: this many tries, then the step fails. */
const TRIES = 5

/**
 * Makes the open directory `dir` its owner's to write in and search again (clanka runs as the
 * script's user): `chmod 555 .git` by a script must not keep its `.git/config` from being put
 * back. Root needs none of it; a directory of another user's stays as it is.
 */
export function ownerWritable(dir: number): void {
  try {
    const { mode } = fstatSync(dir)
    if ((mode & 0o700) !== 0o700) fchmodSync(dir, (mode & 0o7777) | 0o700)
  } catch {
    // not ours: the step that follows fails as it would have
  }
}

/** The directory `name` in `dir`, opened after making it its owner's to read and search if it was not (chmod 000). */
function openOwnDirectory(dir: number, name: string): number | undefined {
  const opened = openDirectory(at(dir, name))
  if (opened !== undefined) return opened
  let path: number
  try {
    path = openSync(at(dir, name), O_PATH | O_DIRECTORY | O_NOFOLLOW)
  } catch {
    return undefined
  }
  try {
    // Through the descriptor's own entry, which names that directory and nothing a symlink leads to.
    chmodSync(`/proc/self/fd/${path}`, (fstatSync(path).mode & 0o7777) | 0o700)
  } catch {
    return undefined
  } finally {
    closeSync(path)
  }
  return openDirectory(at(dir, name))
}

/** `name` inside the open directory `dir`. */
export function at(dir: number, name: string): string {
  return `/proc/self/fd/${dir}/${name}`
}

/** The directory at `path`, opened, or undefined when it is not one (a symlink included). */
export function openDirectory(path: string): number | undefined {
  try {
    return openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
  } catch {
    return undefined
  }
}

/**
 * `root` (a real path) and then each of `parts` below it, each opened without following a
 * symlink; the last one's descriptor, or undefined when one is not a directory. `make`: a
 * missing part is made, and one that is not a directory (a symlink, a file) is put aside first.
 */
export function openBelow(root: string, parts: readonly string[], make = false): number | undefined {
  let dir = openDirectory(root)
  for (const part of parts) {
    if (dir === undefined) return undefined
    let next = make ? openOwnDirectory(dir, part) : openDirectory(at(dir, part))
    for (let tries = 0; make && next === undefined && tries < TRIES; tries++) {
      ownerWritable(dir)
      const info = lstatSync(at(dir, part), { throwIfNoEntry: false })
      try {
        if (info?.isSymbolicLink()) unlinkSync(at(dir, part))
        else if (info && !info.isDirectory()) renameSync(at(dir, part), at(dir, `${part}.clanka-displaced-${Date.now()}`))
        mkdirSync(at(dir, part))
      } catch {
        // Something else got there first: look again.
      }
      next = openDirectory(at(dir, part))
    }
    closeSync(dir)
    dir = next
  }
  return dir
}

/** Removes `name` in `dir` and all below it, never following a symlink; false when it could not. */
export function removeAt(dir: number, name: string): boolean {
  ownerWritable(dir)
  for (let tries = 0; tries < TRIES; tries++) {
    const info = lstatSync(at(dir, name), { throwIfNoEntry: false })
    if (!info) return true
    try {
      if (!info.isDirectory()) {
        unlinkSync(at(dir, name))
        continue
      }
      const child = openOwnDirectory(dir, name)
      if (child !== undefined) {
        try {
          for (const entry of readdirSync(at(child, ""))) removeAt(child, entry)
        } finally {
          closeSync(child)
        }
      }
      rmdirSync(at(dir, name))
    } catch {
      // Swapped or refilled meanwhile: look again.
    }
  }
  return lstatSync(at(dir, name), { throwIfNoEntry: false }) === undefined
}

/** Writes a new file `name` in `dir` (what is in the way is removed first); false when it could not. */
export function writeFileAt(dir: number, name: string, content: Buffer, mode: number): boolean {
  ownerWritable(dir)
  for (let tries = 0; tries < TRIES; tries++) {
    let fd: number
    try {
      fd = openSync(at(dir, name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
    } catch {
      removeAt(dir, name)
      continue
    }
    try {
      for (let done = 0; done < content.length; ) done += writeSync(fd, content, done)
      fchmodSync(fd, mode)
      return true
    } finally {
      closeSync(fd)
    }
  }
  return false
}

/** Makes directory `name` in `dir` (what is in the way is removed first) and opens it; undefined when it could not. */
export function makeDirectoryAt(dir: number, name: string, mode: number): number | undefined {
  ownerWritable(dir)
  for (let tries = 0; tries < TRIES; tries++) {
    try {
      mkdirSync(at(dir, name), { mode: 0o700 })
    } catch {
      removeAt(dir, name)
      continue
    }
    const made = openDirectory(at(dir, name))
    if (made === undefined) continue
    fchmodSync(made, mode)
    return made
  }
  return undefined
}

/** Makes symlink `name` in `dir` pointing to `target`; false when it could not. */
export function symlinkAt(dir: number, name: string, target: string): boolean {
  ownerWritable(dir)
  for (let tries = 0; tries < TRIES; tries++) {
    try {
      symlinkSync(target, at(dir, name))
      return true
    } catch {
      removeAt(dir, name)
    }
  }
  return false
}

/**
 * A regular file's bytes and mode, read without following a symlink or waiting on a FIFO;
 * "large" past `maxBytes`; undefined when it is not a regular file.
 */
export function readFileAt(dir: number, name: string, maxBytes: number): { content: Buffer; mode: number } | "large" | undefined {
  let fd: number
  try {
    fd = openSync(at(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) return undefined
    if (info.size > maxBytes) return "large"
    return { content: readFileSync(fd), mode: info.mode & 0o7777 }
  } finally {
    closeSync(fd)
  }
}

/** The target of symlink `name` in `dir`, or undefined. */
export function readLinkAt(dir: number, name: string): string | undefined {
  try {
    return readlinkSync(at(dir, name))
  } catch {
    return undefined
  }
}
