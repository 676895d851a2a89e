// The bridge's pool of PostgreSQL backends: what Neon's pooled endpoint does in production. A Worker
// may not keep a connection across requests, so every request opens one; without a pool each of them
// would start a new backend (a process, authentication, cold catalog caches: several milliseconds of
// PostgreSQL's CPU before the first statement). A session that ends hands its backend back, rolled
// back and reset (RESET_SESSION: settings, advisory locks, prepared statements, temporary tables:
// nothing of one session reaches the next), and the next session with the same role, database and
// password (checked against the one PostgreSQL accepted) is given it, answered by the bridge itself.
// Only protocol 3.0 sessions that authenticate with a password in clear, as the local server asks.
import { connect, type Socket } from "node:net";
import {
  authenticationCleartextPassword,
  authenticationCode,
  authenticationOk,
  MessageBoundaries,
  MessageReader,
  passwordMessage,
  passwordOf,
  readyForQuery,
  simpleQuery,
  startupParameters,
  type WireMessage,
} from "./pg-wire";

/** Idle backends kept per role and database and in all (well under the server's 200 connections), and for how long. */
const IDLE_PER_KEY = 8;
const IDLE_IN_ALL = 48;
const IDLE_MS = 10_000;
/** A backend whose session ended but that does not settle within this is closed instead. */
const SETTLE_MS = 30_000;

/**
 * What DISCARD ALL does, less DISCARD PLANS (PostgreSQL's documentation lists the same statements):
 * every state a session can see goes, and the plans the backend keeps (a PL/pgSQL function's, which no
 * session can see) stay, as they do behind Neon's pooled endpoint, which resets nothing between
 * transactions. Throwing them away cost every request that calls one its planning again
 * (db/migrations/0039_planned_once.sql, bench/README.md).
 */
export const RESET_SESSION =
  "CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; DEALLOCATE ALL; SELECT pg_advisory_unlock_all(); DISCARD TEMP; DISCARD SEQUENCES; UNLISTEN *";

/** What a session needs of its client: send bytes, and close. */
export interface ClientSide {
  send: (bytes: Buffer) => void;
  close: () => void;
}

class Backend {
  /** Whole messages while the backend starts (authentication, its greeting); null once it relays. */
  private reader: MessageReader | null = new MessageReader();
  private readonly boundaries = new MessageBoundaries((type, firstByte) => this.saw(type, firstByte));
  /** ParameterStatus and BackendKeyData from its start, replayed to every session given it. */
  readonly greeting: Buffer[] = [];
  /** Answers still owed: one ReadyForQuery per simple query or Sync sent. */
  owed = 0;
  /** The transaction status of the last ReadyForQuery: I idle, T in a transaction, E failed. */
  status = "I";
  timer: NodeJS.Timeout | null = null;
  /** While it starts: each whole message. */
  onMessage: (message: WireMessage) => void = () => {};
  /** Once it relays: the bytes as they come, then the type of each message they complete. */
  onBytes: (bytes: Buffer) => void = () => {};
  onType: (type: string) => void = () => {};
  onClose: () => void = () => {};

  constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on("error", () => socket.destroy());
    socket.on("close", () => this.onClose());
    socket.on("data", (chunk: Buffer) => {
      if (!this.reader) return this.relay(chunk);
      for (const message of this.reader.push(chunk)) {
        this.saw(message.type, message.body[0]);
        this.onMessage(message);
      }
    });
  }

  private saw(type: string, firstByte: number | undefined): void {
    if (type === "Z") {
      this.owed = Math.max(0, this.owed - 1);
      this.status = firstByte === undefined ? "I" : String.fromCharCode(firstByte);
    }
    if (this.reader === null) this.onType(type);
  }

  private relay(chunk: Buffer): void {
    this.onBytes(chunk);
    this.boundaries.scan(chunk);
  }

  /** From now on, bytes are relayed as they come (what arrived past the last whole message too). */
  relaying(): void {
    const rest = this.reader?.rest();
    this.reader = null;
    if (rest?.length) this.relay(rest);
  }

  /** Sends a message of the bridge's own (the reset). */
  query(sql: string): void {
    this.owed += 1;
    this.socket.write(simpleQuery(sql));
  }

  destroy(): void {
    if (this.timer) clearTimeout(this.timer);
    this.onClose = () => {};
    this.socket.destroy();
  }
}

export class BackendPool {
  private idle = new Map<string, Backend[]>();
  /** The password PostgreSQL accepted, per target, role and database. */
  private accepted = new Map<string, string>();
  private closed = false;

  /** One client session bound for `target`: feed it the client's bytes, and end it when the client goes. */
  session(target: { host: string; port: number }, client: ClientSide): { receive: (bytes: Buffer) => void; end: () => void } {
    const reader = new MessageReader(true);
    let key: string | null = null;
    let startup: WireMessage | null = null;
    let password: string | null = null;
    let backend: Backend | null = null;
    /** A pooled backend given to this session by the messages being read, not yet relaying. */
    let handedOver: Backend | null = null;
    let ready = false;
    let ended = false;

    // The client's messages, relayed as they come; each simple query or Sync is owed an answer, and
    // the client's goodbye (Terminate) is kept from the backend, which stays open for the pool.
    const fromClient = new MessageBoundaries((type, _firstByte, startedAt) => {
      if (type === "Q" || type === "S") backend!.owed += 1;
      if (type === "X") goodbyeAt = startedAt;
    });
    let goodbyeAt: number | null = null;
    // A client that pipelines its start (as Neon's driver does by default) sends its password and
    // first statements without waiting: they are held here and sent on once the session is ready.
    let early: Buffer[] = [];
    const relay = (chosen: Backend) => {
      ready = true;
      chosen.onBytes = (bytes) => client.send(bytes);
      chosen.onType = () => {};
      chosen.onClose = () => end();
      chosen.relaying();
      const held = Buffer.concat([...early, reader.rest()]);
      early = [];
      if (held.length > 0) receive(held);
    };
    // A backend of its own: the startup sent on, the server's password request answered with the
    // client's password, the rest relayed; once it is ready, the password is known to be accepted.
    const open = (startup: WireMessage) => {
      const fresh = new Backend(connect(target.port, target.host));
      backend = fresh;
      let authenticated = false;
      fresh.onClose = () => end();
      fresh.onMessage = (message) => {
        const code = authenticationCode(message);
        if (code === 3) return void fresh.socket.write(passwordMessage(password!));
        if (code === 0) authenticated = true;
        if (authenticated && (message.type === "S" || message.type === "K")) fresh.greeting.push(message.bytes);
        client.send(message.bytes);
        if (message.type === "Z" && authenticated) {
          this.accepted.set(key!, password!);
          relay(fresh);
        }
      };
      fresh.socket.write(startup.bytes);
    };

    const receive = (bytes: Buffer) => {
      if (ended) return;
      if (ready) {
        fromClient.scan(bytes);
        if (goodbyeAt === null) return void backend!.socket.write(bytes);
        if (goodbyeAt > 0) backend!.socket.write(bytes.subarray(0, goodbyeAt));
        return end();
      }
      for (const message of reader.push(bytes)) {
        if (key === null) {
          const parameters = startupParameters(message);
          if (!parameters) return end(); // SSL and cancel requests: not spoken locally
          key = `${target.host}:${target.port}/${parameters.get("user") ?? ""}/${parameters.get("database") ?? parameters.get("user") ?? ""}`;
          startup = message;
          client.send(authenticationCleartextPassword());
        } else if (password === null && message.type === "p") {
          password = passwordOf(message);
          const pooled = this.accepted.get(key) === password ? this.take(key) : null;
          if (pooled) backend = handedOver = pooled;
          else open(startup!);
        } else if (password !== null) {
          early.push(message.bytes);
        } else {
          return end(); // anything but a password before the session is authenticated
        }
      }
      // A pooled backend is ready at once: the client is answered for it, then what it sent early goes on.
      if (handedOver) {
        const pooled = handedOver;
        handedOver = null;
        client.send(Buffer.concat([authenticationOk(), ...pooled.greeting, readyForQuery("I")]));
        relay(pooled);
      }
    };

    const end = () => {
      if (ended) return;
      ended = true;
      client.close();
      const used = backend;
      if (!used) return;
      if (!ready || this.closed) return used.destroy();
      this.settle(used, key!);
    };

    return { receive, end };
  }

  /** After its session: let owed answers arrive, roll back what is open, reset it (RESET_SESSION), then keep it idle. */
  private settle(backend: Backend, key: string): void {
    // The pool's timers tidy up; they keep no process alive (a test run or npm start ending).
    backend.timer = setTimeout(() => backend.destroy(), SETTLE_MS).unref();
    let rolledBack = false;
    let discarded = false;
    let failed = false;
    const next = () => {
      if (backend.owed > 0) return;
      if (failed) return backend.destroy();
      if (!rolledBack && backend.status !== "I") {
        rolledBack = true;
        return backend.query("ROLLBACK");
      }
      if (!discarded) {
        discarded = true;
        return backend.query(RESET_SESSION);
      }
      clearTimeout(backend.timer!);
      backend.timer = null;
      this.keep(backend, key);
    };
    backend.onBytes = () => {};
    backend.onType = (type) => {
      // An error in the reset itself (the client's own errors came before it was sent).
      if (type === "E" && (rolledBack || discarded)) failed = true;
      if (type === "Z") next();
    };
    backend.onClose = () => {};
    next();
  }

  private keep(backend: Backend, key: string): void {
    const list = this.idle.get(key) ?? [];
    const idleInAll = [...this.idle.values()].reduce((sum, backends) => sum + backends.length, 0);
    if (this.closed || list.length >= IDLE_PER_KEY || idleInAll >= IDLE_IN_ALL || backend.socket.destroyed || backend.status !== "I") {
      backend.destroy();
      return;
    }
    const leave = () =>
      this.idle.set(
        key,
        (this.idle.get(key) ?? []).filter((other) => other !== backend),
      );
    // An idle backend is sent nothing, so anything it says is its goodbye (the FATAL of a terminated
    // backend, a server shutting down) and it is dropped at once, never handed to the next session.
    // Its goodbye may come in the very chunk that ended the reset, after the ReadyForQuery this runs
    // on: the messages still to be read from that chunk count too (onType), not only later chunks.
    const goodbye = () => {
      leave();
      backend.destroy();
    };
    backend.onBytes = goodbye;
    backend.onType = goodbye;
    backend.onClose = leave;
    backend.timer = setTimeout(() => {
      leave();
      backend.destroy();
    }, IDLE_MS).unref();
    list.push(backend);
    this.idle.set(key, list);
  }

  private take(key: string): Backend | null {
    const list = this.idle.get(key) ?? [];
    for (let backend = list.pop(); backend; backend = list.pop()) {
      if (backend.timer) clearTimeout(backend.timer);
      backend.timer = null;
      if (!backend.socket.destroyed) return backend;
    }
    return null;
  }

  close(): void {
    this.closed = true;
    for (const list of this.idle.values()) for (const backend of list) backend.destroy();
    this.idle.clear();
  }
}
