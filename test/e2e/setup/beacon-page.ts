// The site beacon's test page (test/e2e/beacon.e2e.ts), served from an origin of its own for the whole
// run. That origin is one of the Worker's allowed site origins, so it is fixed before the Worker starts;
// the server listens from then on rather than on a port chosen now and bound minutes later, which
// another process had taken by then now and then (EADDRINUSE). The test file sets what the page carries
// with `PUT /__page`.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

const BEACON = readFileSync(new URL("../../../site/pages/beacon.js", import.meta.url), "utf8");
const PAGE = readFileSync(new URL("../fixtures/beacon.html", import.meta.url), "utf8");

/** What the page's beacon is pointed at; the test file sets it before each test. */
export interface BeaconPageSettings {
  endpoint: string;
  flushMs: number;
  retryBaseMs: number;
}

const body = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    request.on("end", () => resolve(text));
    request.on("error", reject);
  });

export async function startBeaconPage(): Promise<{ url: string; close(): Promise<void> }> {
  let settings: BeaconPageSettings = { endpoint: "", flushMs: 100, retryBaseMs: 1000 };
  const server = createServer(async (request, response) => {
    const path = new URL(request.url!, "http://page").pathname;
    if (path === "/__page" && request.method === "PUT") {
      settings = { ...settings, ...(JSON.parse(await body(request)) as Partial<BeaconPageSettings>) };
      return response.writeHead(204).end();
    }
    if (path === "/beacon.js") return response.writeHead(200, { "content-type": "text/javascript" }).end(BEACON);
    const html = PAGE.replace("{{ENDPOINT}}", settings.endpoint)
      .replace("{{FLUSH_MS}}", String(settings.flushMs))
      .replace("{{RETRY_BASE_MS}}", String(settings.retryBaseMs));
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
