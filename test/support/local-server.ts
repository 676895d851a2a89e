// A server of the test's own on a loopback port, answering as `listener` does (or never), for the
// length of `test`: what a Node test points a client at to see what it does with such answers.
import { createServer, type RequestListener } from "node:http";

export async function serving(listener: RequestListener, test: (url: string) => Promise<void>): Promise<void> {
  const server = createServer(listener);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  try {
    await test(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  }
}
