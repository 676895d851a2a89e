// The WebSocket-to-PostgreSQL bridge the neon driver needs locally: the job Neon's proxy and its
// pooled endpoint (backend-pool.ts: PgBouncer pooling by transaction) do in production. Protocol:
// `GET /v1?address=host:port`, then PostgreSQL's wire protocol in binary frames both ways.
import { createServer, type Server } from "node:http";
import { isIP } from "node:net";
import { WebSocketServer } from "ws";
import { BackendPool } from "./backend-pool";

export interface Bridge {
  url: string;
  close: () => Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

function parseTarget(requestUrl: string | undefined): { host: string; port: number } | null {
  const address = new URL(requestUrl ?? "/", "http://bridge").searchParams.get("address") ?? "";
  const match = /^(.+):(\d{1,5})$/.exec(address);
  if (!match) return null;
  const host = match[1]!;
  // Only loopback targets: the bridge must never become an open relay.
  if (!LOOPBACK.has(host) && !(isIP(host) && host.startsWith("127."))) return null;
  return { host, port: Number(match[2]) };
}

export async function startBridge(port: number): Promise<Bridge> {
  const http: Server = createServer((_req, res) => res.writeHead(426).end());
  const wss = new WebSocketServer({ noServer: true });
  const backends = new BackendPool();
  http.on("upgrade", (req, socket, head) => {
    const target = parseTarget(req.url);
    if (!target) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      const session = backends.session(target, {
        send: (bytes) => ws.readyState === ws.OPEN && ws.send(bytes),
        close: () => ws.close(),
      });
      ws.on("message", (data) => session.receive(data as Buffer));
      ws.on("close", () => session.end());
      ws.on("error", () => session.end());
    });
  });
  await new Promise<void>((ok, fail) => {
    http.once("error", fail);
    http.listen(port, "127.0.0.1", () => ok());
  });
  const bound = (http.address() as { port: number }).port;
  return {
    url: `127.0.0.1:${bound}`,
    close: () =>
      new Promise((ok) => {
        for (const client of wss.clients) client.terminate();
        backends.close();
        http.close(() => ok());
      }),
  };
}
