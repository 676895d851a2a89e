// The bridge's pool against a PostgreSQL server it cannot predict the timing of: here a server of the
// test's own that speaks just enough of the protocol (local/pg-wire.ts), so the one timing that matters
// happens every time. The real server's part is test/local/backend-pool.test.ts.
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BackendPool, RESET_SESSION } from "../../local/backend-pool";
import { authenticationCleartextPassword, authenticationOk, message, MessageReader, passwordMessage, readyForQuery, simpleQuery } from "../../local/pg-wire";

const text = (value: string) => Buffer.from(`${value}\0`, "utf8");
const startup = () => {
  const body = Buffer.concat([Buffer.from([0, 3, 0, 0]), text("user"), text("svc_app"), text("database"), text("svc"), Buffer.from([0])]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([length, body]);
};
const commandComplete = (tag: string) => message("C", text(tag));
/** What a backend the server terminates says before it goes: its FATAL. */
const terminated = () =>
  message(
    "E",
    Buffer.concat([
      Buffer.from("S"),
      text("FATAL"),
      Buffer.from("C"),
      text("57P01"),
      Buffer.from("M"),
      text("terminating connection due to administrator command"),
      Buffer.from([0]),
    ]),
  );

/** A server that answers every query, and the reset with its answer and then its FATAL in one write, leaving the socket open. */
function terminatingServer(): Promise<{ server: Server; port: number; connections: Socket[] }> {
  const connections: Socket[] = [];
  const server = createServer((socket) => {
    connections.push(socket);
    const reader = new MessageReader(true);
    socket.on("data", (chunk: Buffer) => {
      for (const received of reader.push(chunk)) {
        if (received.type === "") socket.write(authenticationCleartextPassword());
        else if (received.type === "p") socket.write(Buffer.concat([authenticationOk(), readyForQuery("I")]));
        else if (received.type === "Q") {
          const sql = received.body.subarray(0, received.body.length - 1).toString("utf8");
          const answer = Buffer.concat([commandComplete("SELECT 1"), readyForQuery("I")]);
          socket.write(sql === RESET_SESSION ? Buffer.concat([answer, terminated()]) : answer);
        }
      }
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port, connections })));
}

/** One client session through the pool: start, password, one query, goodbye; resolves once it has its answer. */
function session(pool: BackendPool, port: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = Buffer.alloc(0);
    let queried = false;
    const side = pool.session(
      { host: "127.0.0.1", port },
      {
        send: (bytes) => {
          seen = Buffer.concat([seen, bytes]);
          // Ready after the start: ask; ready after the answer: say goodbye.
          const ready = seen.includes(readyForQuery("I"));
          if (ready && !queried) {
            queried = true;
            seen = Buffer.alloc(0);
            side.receive(simpleQuery("SELECT 1"));
          } else if (ready && queried) {
            side.receive(message("X", Buffer.alloc(0)));
            resolve();
          }
        },
        close: () => {},
      },
    );
    side.receive(startup());
    side.receive(passwordMessage("secret"));
  });
}

const until = async (what: string, done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(done(), what).toBe(true);
};

let stop: (() => void) | null = null;
afterEach(() => stop?.());

describe("the bridge's backend pool", () => {
  it("does not keep a backend whose FATAL came in the same chunk as the end of its reset", async () => {
    const { server, port, connections } = await terminatingServer();
    const pool = new BackendPool();
    stop = () => {
      pool.close();
      for (const socket of connections) socket.destroy();
      server.close();
    };
    await session(pool, port);
    await until("the bridge closed the backend the server terminated", () => connections[0]!.destroyed || connections[0]!.readableEnded);
    await session(pool, port);
    // The next session started a backend of its own: the terminated one was not handed to it.
    expect(connections).toHaveLength(2);
  });
});
