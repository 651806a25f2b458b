/**
 * The pids cgroups a clanka made for its sandboxes (process-bound.ts) emptied and removed when
 * that clanka is killed outright (SIGKILL, the OOM killer), when its exit hook cannot run.
 *
 * Under Landlock there is no pid namespace to end with the sandbox: the executor dies with its
 * parent, and its guardian kills what carries the executor's tag, but a script's process can drop
 * the tag (`env -u`, a non-dumpable process whose environment cannot be read) and the guardian is
 * inside the sandbox, where scripts can kill it. The cgroup holds every process of the sandbox
 * whatever it does (its files are not writable inside), so a watcher outside the sandbox empties
 * it: a small `sh` in a session of its own, started by this process, holding the read end of a
 * pipe only this process writes to. When this process dies the pipe closes and the watcher kills
 * what is left in this process's cgroups, removes them and exits. Scripts cannot signal it
 * (Landlock scopes signals to the sandbox) and it inherits nothing of theirs.
 */
let watching = false
/** Kept, with the pipe's write end, for as long as this process lives. */
let watcher: Bun.Subprocess | undefined

/** Makes sure a watcher empties this process's cgroups `clanka-<pid>-*` under `parent` when it dies. */
export function watchCgroups(parent: string): void {
  if (watching) return
  watching = true
  // After this tick: the sandbox is spawned first (no script runs before it has answered).
  setImmediate(() => spawnWatcher(parent))
}

function spawnWatcher(parent: string): void {
  try {
    // In a session of its own (detached): a signal to this process's group does not reach it.
    watcher = Bun.spawn(["/bin/sh", "-c", WATCHER, parent, String(process.pid)], {
      detached: true,
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    })
  } catch {
    return
  }
  // It waits for this process, not the reverse.
  watcher.unref()
}

// $0: the parent cgroup, $1: this process's pid. Waits for the pipe to close; then, for each of
// its cgroups still there (with their exec and scripts children), kills what is in them until
// they can be removed (about 4 s at most).
const WATCHER = `read -r _ 2>/dev/null
for dir in "$0"/clanka-"$1"-*; do
  [ -d "$dir" ] || continue
  tries=0
  while [ $tries -lt 20 ]; do
    if [ -e "$dir/cgroup.kill" ]; then echo 1 > "$dir/cgroup.kill"; else kill -9 $(cat "$dir/cgroup.procs" "$dir"/*/cgroup.procs) 2>/dev/null; fi
    for child in "$dir"/*/; do [ -d "$child" ] && rmdir "$child"; done 2>/dev/null
    rmdir "$dir" 2>/dev/null && break
    tries=$((tries + 1))
    sleep 0.2
  done
done 2>/dev/null
exit 0`
