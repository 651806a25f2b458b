/**
 * A real redis-server for the queue tests, on a loopback port of its own, nothing saved to disk.
 *
 *   const available = redisAvailable()          // false: the tests skip (CI installs it: never)
 *   const redis = await startRedis()
 *   redis.url("jobs")                           // redis://127.0.0.1:PORT/jobs
 *   await redis.stop()
 */
import { spawnSync } from "node:child_process"
import { connect, createServer } from "node:net"

export interface RedisServer {
  port: number
  url(queue: string): string
  /** Runs redis-cli against it and returns its output. */
  cli(...args: string[]): string
  stop(): Promise<void>
}

const SERVER = Bun.which("redis-server")

/** Whether redis-server is installed; under CI a missing one is an error, not a skip. */
export function redisAvailable(): boolean {
  if (SERVER) return true
  if (process.env.CI) throw new Error("redis-server is missing; install it (apt-get install -y redis-server)")
  console.warn("redis-server is not installed: the queue tests are skipped (apt-get install redis-server)")
  return false
}

export async function startRedis(): Promise<RedisServer> {
  for (let tries = 0; ; tries++) {
    const port = await freePort()
    const child = Bun.spawn([SERVER!, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes"], {
      stdout: "ignore",
      stderr: "pipe",
    })
    const ready = await readyOrExit(child, port)
    if (!ready) {
      // Someone took the port between the check and the start: another one.
      if (tries < 5) continue
      throw new Error(`redis-server did not start: ${await new Response(child.stderr).text()}`)
    }
    return {
      port,
      url: (queue) => `redis://127.0.0.1:${port}/${queue}`,
      cli: (...args) => spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" }).stdout.trim(),
      stop: async () => {
        child.kill("SIGKILL")
        await child.exited
      },
    }
  }
}

/** Whether the server answers PING within 10 s (false when it exits first: its port was taken). */
async function readyOrExit(child: Bun.Subprocess<"ignore", "ignore", "pipe">, port: number): Promise<boolean> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline && child.exitCode === null) {
    if (await pong(port)) return true
    await Bun.sleep(50)
  }
  child.kill("SIGKILL")
  return false
}

function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.setTimeout(1000, () => finish(false))
    socket.once("error", () => finish(false))
    socket.once("connect", () => socket.write("PING\r\n"))
    socket.once("data", (data) => finish(data.toString().startsWith("+PONG")))
    function finish(ok: boolean) {
      socket.destroy()
      resolve(ok)
    }
  })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
