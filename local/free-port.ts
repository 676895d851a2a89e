// A port for a server the caller starts a little later (wrangler dev, PostgreSQL, the site host), whose
// number must be known first (it goes into the configuration). Between the choice and the binding,
// other listeners on port 0 and every outgoing connection are handed ports from the kernel's ephemeral
// range; a port chosen there can be taken meanwhile (an end-to-end run failed so, EADDRINUSE). So the
// port is chosen below that range, where the kernel hands out nothing on its own, when the range is known.
import { readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";

/** Where a chosen port starts: above the well-known and registered services most machines run. */
const LOWEST = 10_000;

/** The kernel's ephemeral range (Linux), or null where it cannot be read. */
export function ephemeralRange(): [number, number] | null {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    return Number.isInteger(low) && Number.isInteger(high) ? [low!, high!] : null;
  } catch {
    return null;
  }
}

/** The port `port` (0: one the kernel picks) if nobody listens on it now; null if someone does. */
const bindable = (port: number) =>
  new Promise<number | null>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => {
      const bound = (server.address() as AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });

/** A TCP port nobody listens on right now, below the ephemeral range when it is known. */
export async function freePort(): Promise<number> {
  const range = ephemeralRange();
  if (range && range[0] > LOWEST + 1000) {
    for (let tries = 0; tries < 100; tries++) {
      const port = await bindable(LOWEST + Math.floor(Math.random() * (range[0] - LOWEST)));
      if (port !== null) return port;
    }
  }
  const port = await bindable(0);
  if (port === null) throw new Error("No free TCP port on 127.0.0.1.");
  return port;
}
