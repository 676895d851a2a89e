// A TCP relay that holds every chunk `oneWayMs` before passing it on, in each direction: the database
// as far away as a Worker usually is from its Neon region. Order is kept (each direction a queue), and
// one side's end reaches the other after what it sent before it.
import { createServer, connect, type Server, type Socket } from "node:net";

export interface DelayProxy {
  /** `127.0.0.1:<port>`. */
  address: string;
  /** What it relays to, `host:port`; set before the first connection. */
  target: string;
  /** The delay each way, changed between measurements. */
  oneWayMs: number;
  close: () => Promise<void>;
}

/** `from`'s bytes reach `to` `delay()` ms after they arrived, in order; `from`'s end ends `to` after them. */
function relay(from: Socket, to: Socket, delay: () => number): void {
  let last = 0;
  const later = (action: () => void) => {
    // Never earlier than what was sent before it, whatever the delay became meanwhile.
    const due = Math.max(performance.now() + delay(), last);
    last = due;
    setTimeout(action, Math.max(0, due - performance.now()));
  };
  from.on("data", (chunk) => later(() => to.destroyed || to.write(chunk)));
  from.on("end", () => later(() => to.end()));
  from.on("error", () => later(() => to.destroy()));
  from.on("close", () => later(() => to.destroy()));
}

export async function startDelayProxy(): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const proxy: DelayProxy = {
    address: "",
    target: "",
    oneWayMs: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((client) => {
    const [host, port] = proxy.target.split(":");
    const upstream = connect(Number(port), host!);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
    relay(client, upstream, () => proxy.oneWayMs);
    relay(upstream, client, () => proxy.oneWayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  proxy.address = `127.0.0.1:${port}`;
  return proxy;
}
