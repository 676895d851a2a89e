// The bridge's pool against a PostgreSQL server it cannot predict the timing of: here a server of the
// test's own that speaks just enough of the protocol (local/pg-wire.ts) and records what each of its
// connections is sent, so the timings that matter happen every time and what the pool sends the server
// is seen exactly. The real server's part is test/local/backend-pool.test.ts.
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BackendPool, RESET_SESSION } from "../../local/backend-pool";
import {
  authenticationCleartextPassword,
  authenticationOk,
  message,
  MessageReader,
  passwordMessage,
  readyForQuery,
  simpleQuery,
  type WireMessage,
} from "../../local/pg-wire";

const text = (value: string) => Buffer.from(`${value}\0`, "utf8");
const startup = (parameters: Record<string, string> = { user: "svc_app", database: "svc" }) => {
  const body = Buffer.concat([
    Buffer.from([0, 3, 0, 0]),
    ...Object.entries(parameters).flatMap(([name, value]) => [text(name), text(value)]),
    Buffer.from([0]),
  ]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([length, body]);
};
const commandComplete = (tag: string) => message("C", text(tag));
const fields = (error: WireMessage) =>
  Object.fromEntries(
    error.body
      .toString("utf8")
      .split("\0")
      .filter(Boolean)
      .map((field) => [field[0], field.slice(1)]),
  );
/** What a backend the server terminates says before it goes: its FATAL. */
const terminated = () =>
  message("E", Buffer.concat([text("SFATAL"), text("C57P01"), text("Mterminating connection due to administrator command"), Buffer.from([0])]));
// The extended protocol's messages, as a client sends them (a statement name where one is given).
const parse = (statement: string) => message("P", Buffer.concat([text(statement), text("SELECT 1"), Buffer.from([0, 0])]));
const bind = (statement: string) => message("B", Buffer.concat([text(""), text(statement), Buffer.from([0, 0, 0, 0, 0, 0])]));
const execute = () => message("E", Buffer.concat([text(""), Buffer.from([0, 0, 0, 0])]));
const sync = () => message("S", Buffer.alloc(0));
const terminate = () => message("X", Buffer.alloc(0));

interface Connection {
  socket: Socket;
  /** What it was sent after its start: the text of each simple query, the type of any other message. */
  sent: string[];
}

/**
 * A server that answers every query and Sync with its transaction status (BEGIN opens a transaction,
 * COMMIT and ROLLBACK end it), and Parse, Bind and Execute as PostgreSQL does when they succeed;
 * `fatalAfterReset` answers the reset with its answer and then a FATAL in one write, leaving the socket
 * open, and `byteByByte` writes its answers one byte at a time.
 */
function fakeServer(options: { fatalAfterReset?: boolean; byteByByte?: boolean } = {}): Promise<{ server: Server; port: number; connections: Connection[] }> {
  const connections: Connection[] = [];
  const server = createServer((socket) => {
    const connection: Connection = { socket, sent: [] };
    connections.push(connection);
    const reader = new MessageReader(true);
    let status = "I";
    // Written in order, one byte at a time if asked: each byte its own chunk for the bridge.
    let writing = Promise.resolve();
    const write = (bytes: Buffer) => {
      if (!options.byteByByte) return void socket.write(bytes);
      for (const byte of bytes) writing = writing.then(() => new Promise((resolve) => socket.write(Buffer.from([byte]), () => setTimeout(resolve, 1))));
    };
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => {
      for (const received of reader.push(chunk)) {
        if (received.type === "") socket.write(authenticationCleartextPassword());
        else if (received.type === "p") socket.write(Buffer.concat([authenticationOk(), message("K", Buffer.alloc(8)), readyForQuery("I")]));
        else if (received.type === "Q") {
          const sql = received.body.subarray(0, received.body.length - 1).toString("utf8");
          connection.sent.push(sql);
          if (sql.startsWith("BEGIN")) status = "T";
          if (sql.startsWith("COMMIT") || sql === "ROLLBACK" || sql === RESET_SESSION) status = "I";
          const answer = Buffer.concat([commandComplete("SELECT 1"), readyForQuery(status)]);
          write(sql === RESET_SESSION && options.fatalAfterReset ? Buffer.concat([answer, terminated()]) : answer);
        } else {
          const statement = received.type === "P" ? received.body.subarray(0, received.body.indexOf(0)).toString("utf8") : "";
          connection.sent.push(statement ? `P ${statement}` : received.type);
          const answers: Record<string, () => Buffer> = {
            P: () => message("1", Buffer.alloc(0)),
            B: () => message("2", Buffer.alloc(0)),
            E: () => commandComplete("SELECT 1"),
            S: () => readyForQuery(status),
          };
          const answer = answers[received.type];
          if (answer) write(answer());
        }
      }
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port, connections })));
}

/** A client session through the pool, reading what the bridge answers it. */
function client(pool: BackendPool, port: number) {
  const reader = new MessageReader();
  const received: WireMessage[] = [];
  let closed = false;
  const side = pool.session(
    { host: "127.0.0.1", port },
    {
      send: (bytes) => received.push(...reader.push(bytes)),
      close: () => (closed = true),
    },
  );
  return {
    send: (...messages: Buffer[]) => side.receive(Buffer.concat(messages)),
    end: () => side.end(),
    closed: () => closed,
    /** Resolves with what came up to and including the next ReadyForQuery. */
    answer: async (): Promise<WireMessage[]> => {
      await until("an answer", () => received.some((got) => got.type === "Z"));
      return received.splice(0, received.findIndex((got) => got.type === "Z") + 1);
    },
    received,
  };
}

/** A client whose session has started: startup and password sent, ready. */
async function started(pool: BackendPool, port: number) {
  const session = client(pool, port);
  session.send(startup(), passwordMessage("secret"));
  await session.answer();
  return session;
}

const until = async (what: string, done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(done(), what).toBe(true);
};
const settled = () => new Promise((resolve) => setTimeout(resolve, 50));

let stop: (() => void) | null = null;
afterEach(() => stop?.());

async function setUp(limits?: ConstructorParameters<typeof BackendPool>[0], options?: Parameters<typeof fakeServer>[0]) {
  const { server, port, connections } = await fakeServer(options);
  const pool = new BackendPool(limits);
  stop = () => {
    pool.close();
    for (const connection of connections) connection.socket.destroy();
    server.close();
  };
  return { pool, port, connections };
}

describe("the bridge's pool, by transaction", () => {
  it("does not keep a backend whose FATAL came in the same chunk as the end of its reset", async () => {
    const { pool, port, connections } = await setUp(undefined, { fatalAfterReset: true });
    const first = await started(pool, port);
    first.send(simpleQuery("SELECT 1"));
    await first.answer();
    await until("the bridge closed the backend the server terminated", () => connections[0]!.socket.destroyed || connections[0]!.socket.readableEnded);
    first.send(simpleQuery("SELECT 2"));
    await first.answer();
    // The next transaction started a backend of its own: the terminated one was not handed to it.
    expect(connections).toHaveLength(2);
    expect(connections[1]!.sent[0]).toBe("SELECT 2");
  });

  it("resets a backend after every transaction, and lets the client's next one have it only then", async () => {
    const { pool, port, connections } = await setUp({ serverConnections: 1, waitMs: 30_000 });
    const session = await started(pool, port);
    for (const sql of ["BEGIN", "SELECT 1", "COMMIT", "SELECT 2"]) {
      session.send(simpleQuery(sql));
      await session.answer();
    }
    await settled();
    expect(connections).toHaveLength(1);
    expect(connections[0]!.sent).toEqual(["BEGIN", "SELECT 1", "COMMIT", RESET_SESSION, "SELECT 2", RESET_SESSION]);
  });

  it("keeps the backend through an extended-protocol exchange until its Sync is answered", async () => {
    const { pool, port, connections } = await setUp({ serverConnections: 2, waitMs: 30_000 });
    const session = await started(pool, port);
    // A statement synced and the next one's Parse and Bind in one write, its Execute and Sync later:
    // the first Sync's answer does not end the exchange, and the second half reaches the same backend.
    session.send(parse(""), bind(""), execute(), sync(), parse(""), bind(""));
    await session.answer();
    await settled();
    session.send(execute(), sync());
    await session.answer();
    await settled();
    expect(connections.map((connection) => connection.sent)).toEqual([["P", "B", "E", "S", "P", "B", "E", "S", RESET_SESSION]]);
  });

  it("hands out idle backends in the order they became idle", async () => {
    const { pool, port, connections } = await setUp({ serverConnections: 3, waitMs: 30_000 });
    // Three backends, each in a transaction of its own, idle again one after the other.
    const holders = await Promise.all([0, 1, 2].map(() => started(pool, port)));
    holders.forEach((holder, i) => holder.send(simpleQuery(`BEGIN /* ${i} */`)));
    await Promise.all(holders.map((holder) => holder.answer()));
    for (const holder of holders) {
      holder.send(simpleQuery("COMMIT"));
      await holder.answer();
      await settled();
    }
    const session = await started(pool, port);
    for (const sql of ["SELECT 1", "SELECT 2", "SELECT 3", "SELECT 4"]) {
      session.send(simpleQuery(sql));
      await session.answer();
      await settled();
    }
    const ran = (sql: string) => connections.findIndex((connection) => connection.sent.includes(sql));
    const held = [0, 1, 2].map((i) => ran(`BEGIN /* ${i} */`));
    expect(["SELECT 1", "SELECT 2", "SELECT 3", "SELECT 4"].map(ran)).toEqual([...held, held[0]]);
  });

  it("answers a client that pipelines its start, on a fresh backend and on a pooled one", async () => {
    const { pool, port, connections } = await setUp();
    for (const round of ["fresh", "pooled"]) {
      const session = client(pool, port);
      session.send(startup(), passwordMessage("secret"), simpleQuery(`SELECT '${round}'`));
      await session.answer(); // the start
      expect(
        (await session.answer()).map((got) => got.type),
        round,
      ).toEqual(["C", "Z"]);
      session.send(terminate());
      await settled();
    }
    expect(connections).toHaveLength(1);
    expect(connections[0]!.sent).toEqual(["SELECT 'fresh'", RESET_SESSION, "SELECT 'pooled'", RESET_SESSION]);
  });

  it("accepts the startup parameters PgBouncer tracks, and refuses any other as it does: FATAL 08P01, then the session closed", async () => {
    const { pool, port } = await setUp();
    const tracked = client(pool, port);
    tracked.send(
      startup({
        user: "svc_app",
        database: "svc",
        client_encoding: "UTF8",
        datestyle: "ISO, MDY",
        TimeZone: "UTC",
        standard_conforming_strings: "on",
        application_name: "a test",
      }),
    );
    expect(tracked.received.map((got) => got.type)).toEqual(["R"]);
    for (const parameter of ["search_path", "options", "extra_float_digits"]) {
      const refused = client(pool, port);
      refused.send(startup({ user: "svc_app", database: "svc", [parameter]: "x" }));
      expect(
        refused.received.map((got) => got.type),
        parameter,
      ).toEqual(["E"]);
      expect(fields(refused.received[0]!), parameter).toEqual({ S: "FATAL", V: "FATAL", C: "08P01", M: `unsupported startup parameter: ${parameter}` });
      expect(refused.closed(), parameter).toBe(true);
    }
  });

  it("queues clients while every backend is busy, and refuses one that waits past the deadline", async () => {
    const { pool, port, connections } = await setUp({ serverConnections: 1, waitMs: 200 });
    const holder = await started(pool, port);
    holder.send(simpleQuery("BEGIN"));
    await holder.answer();
    const late = await started(pool, port);
    late.send(simpleQuery("SELECT 'late'"));
    await until("the late client refused", () => late.closed());
    expect(fields(late.received[0]!)).toMatchObject({ S: "FATAL", C: "08P01", M: expect.stringMatching(/^query_wait_timeout/) });
    const next = await started(pool, port);
    next.send(simpleQuery("SELECT 'next'"));
    await settled();
    expect(next.received, "answered while the only backend was in a transaction").toEqual([]);
    holder.send(simpleQuery("COMMIT"));
    await holder.answer();
    expect((await next.answer()).map((got) => got.type)).toEqual(["C", "Z"]);
    expect(connections).toHaveLength(1);
    expect(connections[0]!.sent).toEqual(["BEGIN", "COMMIT", RESET_SESSION, "SELECT 'next'", RESET_SESSION]);
  });

  it("rolls back and resets the backend of a client that leaves in the middle of a transaction, and of one that says goodbye there", async () => {
    const { pool, port, connections } = await setUp({ serverConnections: 1, waitMs: 30_000 });
    for (const leave of ["gone", "Terminate"]) {
      const session = await started(pool, port);
      session.send(simpleQuery("BEGIN"));
      await session.answer();
      if (leave === "gone") session.end();
      else session.send(terminate());
      await settled();
    }
    expect(connections).toHaveLength(1);
    expect(connections[0]!.sent).toEqual(["BEGIN", "ROLLBACK", RESET_SESSION, "BEGIN", "ROLLBACK", RESET_SESSION]);
  });

  it("closes a Sync left open by a client that leaves in the middle of an extended-protocol exchange", async () => {
    const { pool, port, connections } = await setUp();
    const session = await started(pool, port);
    session.send(parse(""), bind(""));
    await settled();
    session.end();
    await settled();
    expect(connections[0]!.sent).toEqual(["P", "B", "S", RESET_SESSION]);
  });

  it("ends the session of a client whose backend dies in the middle of its transaction", async () => {
    const { pool, port, connections } = await setUp();
    const session = await started(pool, port);
    session.send(simpleQuery("BEGIN"));
    await session.answer();
    connections[0]!.socket.end(terminated());
    await until("the client closed", () => session.closed());
    expect(session.received.map((got) => got.type)).toEqual(["E"]);
  });

  it.each([
    { server: "answering in whole chunks", byteByByte: false },
    { server: "answering one byte at a time", byteByByte: true },
  ])("sends a client's named statement's Parse again to the next backend it uses, and never shows it that Parse's answer ($server)", async ({ byteByByte }) => {
    const { pool, port, connections } = await setUp({ serverConnections: 2, waitMs: 30_000 }, { byteByByte });
    const session = await started(pool, port);
    session.send(simpleQuery("BEGIN"));
    await session.answer();
    session.send(parse("kept"), bind("kept"), execute(), sync());
    expect((await session.answer()).map((got) => got.type)).toEqual(["1", "2", "C", "Z"]);
    // Meanwhile another client's transaction on a second backend, idle before the first is back.
    const other = await started(pool, port);
    for (const sql of ["BEGIN", "COMMIT"]) {
      other.send(simpleQuery(sql));
      await other.answer();
    }
    await settled();
    session.send(simpleQuery("COMMIT"));
    await session.answer();
    await settled();
    for (const round of ["elsewhere", "back"]) {
      session.send(bind("kept"), execute(), sync());
      expect(
        (await session.answer()).map((got) => got.type),
        round,
      ).toEqual(["2", "C", "Z"]);
      await settled();
    }
    expect(connections.map((connection) => connection.sent)).toEqual([
      ["BEGIN", "P kept", "B", "E", "S", "COMMIT", RESET_SESSION, "P kept", "B", "E", "S", RESET_SESSION],
      ["BEGIN", "COMMIT", RESET_SESSION, "P kept", "B", "E", "S", RESET_SESSION],
    ]);
  });

  it("parses a named statement once on a backend, and forgets one the client closes", async () => {
    const { pool, port, connections } = await setUp({ serverConnections: 1, waitMs: 30_000 });
    const session = await started(pool, port);
    session.send(simpleQuery("BEGIN"));
    await session.answer();
    session.send(parse("kept"), bind("kept"), execute(), sync());
    await session.answer();
    session.send(bind("kept"), execute(), sync());
    await session.answer();
    session.send(simpleQuery("COMMIT"));
    await session.answer();
    session.send(message("C", Buffer.concat([Buffer.from("S"), text("kept")])), bind("kept"), execute(), sync());
    await session.answer();
    await settled();
    expect(connections[0]!.sent).toEqual(["BEGIN", "P kept", "B", "E", "S", "B", "E", "S", "COMMIT", RESET_SESSION, "C", "B", "E", "S", RESET_SESSION]);
  });
});
