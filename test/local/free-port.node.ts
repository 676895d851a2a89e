// A port chosen for a server started later is free, and lies below the kernel's ephemeral range, which
// listeners on port 0 and outgoing connections draw from meanwhile (local/free-port.ts).
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { ephemeralRange, freePort } from "../../local/free-port";

describe("freePort", () => {
  it("answers a port that can be bound, below the ephemeral range where the kernel says what it is", async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    const range = ephemeralRange();
    if (range) for (const port of ports) expect(port).toBeLessThan(range[0]);
    const port = ports[0]!;
    const server = createServer();
    await new Promise<void>((ok, fail) => {
      server.once("error", fail);
      server.listen(port, "127.0.0.1", ok);
    });
    await new Promise((ok) => server.close(ok));
  });
});
