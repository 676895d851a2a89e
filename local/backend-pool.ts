// The bridge's pool of PostgreSQL backends: what Neon's pooled endpoint, PgBouncer with
// `pool_mode = transaction` and `server_round_robin = 1`, does in production. A client's session is
// virtual (the bridge answers its start itself); a backend is the client's for one transaction only,
// then reset (RESET_SESSION) and handed to whoever asks next, in the order backends became idle, so
// that the client's next transaction runs on another one whenever another is idle. Code that keeps
// session state between transactions (a SET or SET ROLE outside one, a session advisory lock, a
// statement made with SQL PREPARE, a temporary table, LISTEN) fails here every time, where behind
// Neon it fails only when its next transaction lands elsewhere. A client's named statements of the
// extended protocol do follow it from backend to backend, as Neon's PgBouncer (max_prepared_statements)
// carries them. Only protocol 3.0 sessions that authenticate with a password in clear, as the local
// server asks.
import { connect, type Socket } from "node:net";
import {
  authenticationCleartextPassword,
  authenticationCode,
  authenticationOk,
  errorResponse,
  MessageBoundaries,
  MessageReader,
  message,
  passwordMessage,
  passwordOf,
  readyForQuery,
  simpleQuery,
  startupParameters,
  statementOf,
  type WireMessage,
} from "./pg-wire";

/** Server connections per pool (PgBouncer's default_pool_size), fewer than its 20: many pools share the local server's 200. */
export const SERVER_CONNECTIONS = 8;
/** How long a client waits for a server connection while all of its pool's are busy (PgBouncer's query_wait_timeout). */
export const WAIT_MS = 30_000;
/** Idle backends kept in all (well under the server's 200 connections), and for how long. */
const IDLE_IN_ALL = 48;
const IDLE_MS = 10_000;
/** A backend let go that does not settle within this is closed instead. */
const SETTLE_MS = 30_000;

/**
 * The startup parameters PgBouncer tracks for each client itself, matched as it matches them (case
 * aside). With `user` and `database` they are all it accepts: any other is refused (FATAL 08P01).
 */
const TRACKED = new Map(
  ["client_encoding", "DateStyle", "TimeZone", "standard_conforming_strings", "application_name"].map((name) => [name.toLowerCase(), name]),
);

/**
 * What DISCARD ALL does, less DISCARD PLANS (PostgreSQL's documentation lists the same statements):
 * every state a session can see goes, and the plans the backend keeps (a PL/pgSQL function's, which no
 * session can see) stay, as they do behind Neon's pooled endpoint, which resets nothing between
 * transactions. Throwing them away cost every request that calls one its planning again
 * (db/migrations/0039_planned_once.sql, bench/README.md).
 */
export const RESET_SESSION =
  "CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; DEALLOCATE ALL; SELECT pg_advisory_unlock_all(); DISCARD TEMP; DISCARD SEQUENCES; UNLISTEN *";

/** The client's extended-protocol messages: once one is sent, the backend stays until the next Sync is answered. */
const EXTENDED = new Set(["P", "B", "D", "E", "C", "H"]);

/** What a session needs of its client: send bytes, and close. */
export interface ClientSide {
  send: (bytes: Buffer) => void;
  close: () => void;
}

type Target = { host: string; port: number };
/** A message for a backend; `added` marks a Parse the bridge sends for its client, whose answer the client never sees. */
type Outgoing = Pick<WireMessage, "type" | "bytes"> & { added?: boolean };

class Backend {
  /** Whole messages while it starts (authentication, its greeting); null once it relays. */
  private reader: MessageReader | null = new MessageReader();
  private readonly boundaries = new MessageBoundaries((type, firstByte, endsAt) => this.saw(type, firstByte, endsAt));
  /** The bytes being relayed (what was held back, then the chunk), where the chunk starts in them, and how much of them has gone to a client. */
  private data: Buffer = Buffer.alloc(0);
  private chunkAt = 0;
  private relayed = 0;
  /** The end of the last chunk when it ended inside a message's header: held back, so that the message can still be cut out. */
  private held: Buffer = Buffer.alloc(0);
  /**
   * The answers still owed, in order: "Z" a ReadyForQuery (for a simple query, Sync or function call),
   * "1" a ParseComplete, "-" the ParseComplete of a Parse the bridge added, which its client never sees.
   */
  private answers: string[] = [];
  /** ParameterStatus and BackendKeyData from its start. */
  readonly greeting: Buffer[] = [];
  /** The transaction status of the last ReadyForQuery: I idle, T in a transaction, E failed. */
  status = "I";
  /** The client holding it, which its bytes go to; null while the bridge holds it. */
  client: ((bytes: Buffer) => void) | null = null;
  timer: NodeJS.Timeout | null = null;
  gone = false;
  /** While it starts: each whole message. */
  onMessage: (message: WireMessage) => void = () => {};
  /** Once it relays: the type of each message. */
  onType: (type: string) => void = () => {};
  onClose: () => void = () => {};

  constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on("error", () => socket.destroy());
    socket.on("close", () => this.onClose());
    socket.on("data", (chunk: Buffer) => (this.reader ? this.starting(this.reader, chunk) : this.relay(chunk)));
  }

  private starting(reader: MessageReader, chunk: Buffer): void {
    const messages = reader.push(chunk);
    for (const [i, message] of messages.entries()) {
      this.answered(message.type, message.body[0]);
      this.onMessage(message);
      if (this.reader) continue;
      // Started: what came after its first ReadyForQuery is relayed like anything later.
      const rest = Buffer.concat([...messages.slice(i + 1).map((later) => later.bytes), reader.rest()]);
      if (rest.length > 0) this.relay(rest);
      return;
    }
  }

  /** ReadyForQuery still owed. */
  get owed(): number {
    return this.answers.filter((answer) => answer === "Z").length;
  }

  /** Takes an answer off those owed; true for the ParseComplete of a Parse the bridge added. */
  private answered(type: string, firstByte: number | undefined): boolean {
    const parse = () => this.answers[0] === "1" || this.answers[0] === "-";
    if (type === "1") return parse() && this.answers.shift() === "-";
    // An error ends its exchange: the server skips the rest of it up to its Sync, Parses included.
    if (type === "E" || type === "Z") while (parse()) this.answers.shift();
    if (type === "Z") {
      this.answers.shift();
      this.status = firstByte === undefined ? "I" : String.fromCharCode(firstByte);
    }
    return false;
  }

  private relay(chunk: Buffer): void {
    this.data = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    this.chunkAt = this.data.length - chunk.length;
    this.relayed = 0;
    this.boundaries.scan(chunk);
    const whole = this.data.length - this.boundaries.partial;
    if (this.client && this.relayed < whole) this.client(this.data.subarray(this.relayed, whole));
    this.held = Buffer.from(this.data.subarray(whole));
  }

  private saw(type: string, firstByte: number | undefined, endsAt: number): void {
    const end = this.chunkAt + endsAt;
    if (this.answered(type, firstByte)) {
      // Cut out of what the client is sent: a ParseComplete is 5 bytes, all of them in `data`.
      this.client?.(this.data.subarray(this.relayed, end - 5));
      this.relayed = end;
      return;
    }
    const client = this.client;
    this.onType(type);
    if (this.client === client) return;
    // Its holder changed with this message: the client that let go gets the bytes up to its end, and
    // whoever holds it next none of them.
    client?.(this.data.subarray(this.relayed, end));
    this.relayed = end;
  }

  /** From now on, bytes are relayed as they come. */
  relaying(): void {
    this.reader = null;
  }

  /** Sends the client's messages or the bridge's own, counting the answers they are owed. */
  write(messages: readonly Outgoing[]): void {
    for (const { type, added } of messages) {
      if (type === "P") this.answers.push(added ? "-" : "1");
      if (type === "Q" || type === "S" || type === "F") this.answers.push("Z");
    }
    this.socket.write(messages.length === 1 ? messages[0]!.bytes : Buffer.concat(messages.map((sent) => sent.bytes)));
  }

  query(sql: string): void {
    this.write([{ type: "Q", bytes: simpleQuery(sql) }]);
  }

  destroy(): void {
    this.gone = true;
    if (this.timer) clearTimeout(this.timer);
    this.client = null;
    this.onType = () => {};
    this.onClose = () => {};
    this.socket.destroy();
  }
}

/** The backends of one target, role, database and set of tracked parameters: a backend keeps those it started with through every reset. */
interface Pool {
  target: Target;
  /** The startup message its backends open with, and the password PostgreSQL accepted (null until it has). */
  startup: Buffer;
  password: string | null;
  /** ParameterStatus and BackendKeyData of a backend of its, for the sessions the bridge answers itself. */
  greeting: Buffer[];
  /** Its backends, whatever they are doing, and how many of them are starting. */
  size: number;
  opening: number;
  /** Idle backends in the order they became idle, and clients waiting for one in the order they asked. */
  idle: Backend[];
  waiting: Session[];
}

/** One client's session: answered by the bridge, its messages sent to a backend one transaction at a time. */
class Session {
  private readonly reader = new MessageReader(true);
  private pool: Pool | null = null;
  private password: string | null = null;
  /** The backend checking the password with PostgreSQL, before the client is answered. */
  private checking: Backend | null = null;
  private authenticated = false;
  private backend: Backend | null = null;
  /** Messages that wait for the client to be answered or for a backend, in order. */
  private pending: WireMessage[] = [];
  /** An extended-protocol message was sent since the last Sync. */
  private extended = false;
  /** The client's named statements (their Parse), and those its backend has had since it was given it. */
  private readonly statements = new Map<string, Buffer>();
  private parsed = new Set<string>();
  private waitTimer: NodeJS.Timeout | null = null;
  private ended = false;

  constructor(
    private readonly pools: BackendPool,
    private readonly target: Target,
    private readonly client: ClientSide,
  ) {}

  receive(bytes: Buffer): void {
    let goodbye = false;
    for (const received of this.reader.push(bytes)) {
      if (this.ended || goodbye) break;
      if (this.pool === null) this.start(received);
      else if (this.password === null) this.authenticate(received);
      // Terminate: the client's goodbye, kept from the backend, which stays open for the pool.
      else if (received.type === "X") goodbye = true;
      else this.take(received);
    }
    this.flush();
    if (goodbye) this.end();
  }

  private start(startup: WireMessage): void {
    const parameters = startupParameters(startup);
    const unsupported = [...(parameters?.keys() ?? [])].find((name) => name !== "user" && name !== "database" && !TRACKED.has(name.toLowerCase()));
    if (!parameters) {
      this.end(); // SSL and cancel requests: not spoken locally
    } else if (unsupported !== undefined) {
      this.refuse(errorResponse("FATAL", "08P01", `unsupported startup parameter: ${unsupported}`));
    } else {
      this.pool = this.pools.poolFor(this.target, parameters, startup.bytes);
      this.client.send(authenticationCleartextPassword());
    }
  }

  private authenticate(received: WireMessage): void {
    const pool = this.pool!;
    this.password = received.type === "p" ? passwordOf(received) : null;
    if (this.password === null) {
      this.end(); // anything but a password before the session is answered
    } else if (pool.password !== this.password) {
      this.check(pool);
    } else {
      this.client.send(Buffer.concat([authenticationOk(), ...pool.greeting, readyForQuery("I")]));
      this.authenticated = true;
    }
  }

  // A pool's first client, or one with another password: a backend of its own asks PostgreSQL, whose
  // answers (its greeting, or its refusal) are the client's; then the backend joins the pool.
  private check(pool: Pool): void {
    const backend = new Backend(connect(this.target.port, this.target.host));
    this.checking = backend;
    let accepted = false;
    backend.onClose = () => this.end();
    backend.onMessage = (received) => {
      const code = authenticationCode(received);
      if (code === 3) return void backend.socket.write(passwordMessage(this.password!));
      if (code === 0) accepted = true;
      if (accepted && (received.type === "S" || received.type === "K")) backend.greeting.push(received.bytes);
      this.client.send(received.bytes);
      if (received.type !== "Z" || !accepted) return;
      this.checking = null;
      backend.relaying();
      pool.password = this.password;
      pool.greeting = backend.greeting;
      this.authenticated = true;
      this.pools.adopt(pool, backend);
      this.flush();
    };
    backend.socket.write(pool.startup);
  }

  private take(received: WireMessage): void {
    if (received.type === "S") this.extended = false;
    else if (EXTENDED.has(received.type)) this.extended = true;
    this.pending.push(received);
  }

  /** Sends what waits to the client's backend, asking for one if it has none. */
  private flush(): void {
    if (!this.authenticated || this.ended || this.pending.length === 0) return;
    if (this.backend) {
      this.backend.write(this.pending.flatMap((sent) => this.withStatement(sent)));
      this.pending = [];
    } else if (this.waitTimer === null) {
      const { waitMs } = this.pools.limits;
      const timeout = `query_wait_timeout: no server connection came free within ${waitMs / 1000} s`;
      this.waitTimer = setTimeout(() => this.refuse(errorResponse("FATAL", "08P01", timeout)), waitMs).unref();
      this.pools.wait(this.pool!, this);
    }
  }

  /**
   * A message that uses one of the client's named statements goes after that statement's Parse when
   * its backend has not had it yet (none has, after its reset), as PgBouncer's max_prepared_statements
   * does: a named statement is the client's, not its backend's.
   */
  private withStatement(sent: WireMessage): Outgoing[] {
    const name = statementOf(sent);
    const parse = this.statements.get(name);
    if (sent.type === "P" && name !== "") {
      this.statements.set(name, sent.bytes);
      this.parsed.add(name);
    } else if (sent.type === "C") {
      this.statements.delete(name);
      this.parsed.delete(name);
    } else if (parse && !this.parsed.has(name)) {
      this.parsed.add(name);
      return [{ type: "P", bytes: parse, added: true }, sent];
    }
    return [sent];
  }

  /** Given a backend for its next transaction: it is the client's until the transaction is over. */
  link(backend: Backend): void {
    clearTimeout(this.waitTimer!);
    this.waitTimer = null;
    this.backend = backend;
    this.parsed = new Set();
    backend.client = (bytes) => this.client.send(bytes);
    // Over: ready and idle, with nothing owed and no extended exchange left open.
    backend.onType = (type) => {
      if (type === "Z" && this.backend === backend && backend.owed === 0 && backend.status === "I" && !this.extended) this.letGo();
    };
    // A backend that dies ends its client's session, as PgBouncer closes the client of a server connection it loses.
    backend.onClose = () => {
      this.backend = null;
      this.pools.drop(this.pool!, backend);
      this.end();
    };
    this.flush();
  }

  private letGo(): void {
    const backend = this.backend!;
    this.backend = null;
    this.pools.letGo(this.pool!, backend, this.extended);
  }

  refuse(error: Buffer): void {
    this.client.send(error);
    this.end();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.client.close();
    if (this.waitTimer) {
      clearTimeout(this.waitTimer);
      this.pools.stopWaiting(this.pool!, this);
    }
    this.checking?.destroy();
    if (this.backend) this.letGo();
  }
}

export class BackendPool {
  private pools = new Map<string, Pool>();
  private closed = false;

  constructor(readonly limits = { serverConnections: SERVER_CONNECTIONS, waitMs: WAIT_MS }) {}

  /** One client session bound for `target`: feed it the client's bytes, and end it when the client goes. */
  session(target: Target, client: ClientSide): { receive: (bytes: Buffer) => void; end: () => void } {
    const session = new Session(this, target, client);
    return { receive: (bytes) => session.receive(bytes), end: () => session.end() };
  }

  // What its sessions ask of it.

  poolFor(target: Target, parameters: Map<string, string>, startup: Buffer): Pool {
    const user = parameters.get("user") ?? "";
    const tracked = [...parameters].flatMap(([name, value]) => (TRACKED.has(name.toLowerCase()) ? [`${TRACKED.get(name.toLowerCase())}=${value}`] : [])).sort();
    const key = JSON.stringify([target.host, target.port, user, parameters.get("database") ?? user, ...tracked]);
    let pool = this.pools.get(key);
    if (!pool) this.pools.set(key, (pool = { target, startup, password: null, greeting: [], size: 0, opening: 0, idle: [], waiting: [] }));
    return pool;
  }

  wait(pool: Pool, session: Session): void {
    pool.waiting.push(session);
    this.serve(pool);
  }

  stopWaiting(pool: Pool, session: Session): void {
    pool.waiting = pool.waiting.filter((other) => other !== session);
  }

  /** A backend that checked a client's password joins its pool, unless the pool is full. */
  adopt(pool: Pool, backend: Backend): void {
    if (pool.size >= this.limits.serverConnections) {
      backend.destroy();
    } else {
      pool.size += 1;
      this.idle(pool, backend);
    }
  }

  /** After its client's transaction (or its client): let owed answers arrive, roll back what is open, reset it (RESET_SESSION), then idle. */
  letGo(pool: Pool, backend: Backend, extended: boolean): void {
    if (this.closed) {
      this.drop(pool, backend);
      return;
    }
    backend.client = null;
    backend.timer = setTimeout(() => this.drop(pool, backend), SETTLE_MS).unref();
    let rolledBack = false;
    let reset = false;
    let failed = false;
    const next = () => {
      if (backend.owed > 0) return;
      if (failed) return this.drop(pool, backend);
      if (!rolledBack && backend.status !== "I") {
        rolledBack = true;
        return backend.query("ROLLBACK");
      }
      if (!reset) {
        reset = true;
        return backend.query(RESET_SESSION);
      }
      clearTimeout(backend.timer!);
      backend.timer = null;
      this.idle(pool, backend);
    };
    backend.onType = (type) => {
      // An error in the bridge's own statements (the client's errors came before they were sent).
      if (type === "E" && (rolledBack || reset)) failed = true;
      if (type === "Z") next();
    };
    backend.onClose = () => this.drop(pool, backend);
    // A client gone in the middle of an extended-protocol exchange: a Sync closes it.
    if (extended) backend.write([{ type: "S", bytes: message("S", Buffer.alloc(0)) }]);
    next();
  }

  drop(pool: Pool, backend: Backend): void {
    if (backend.gone) return;
    backend.destroy();
    pool.size -= 1;
    pool.idle = pool.idle.filter((other) => other !== backend);
    this.serve(pool);
  }

  // Its own work.

  /** Hands idle backends to waiting clients, oldest idle first, and opens backends for those left, up to the pool's limit. */
  private serve(pool: Pool): void {
    while (pool.waiting.length > 0 && pool.idle.length > 0) {
      const backend = pool.idle.shift()!;
      clearTimeout(backend.timer!);
      backend.timer = null;
      pool.waiting.shift()!.link(backend);
    }
    while (!this.closed && pool.waiting.length > pool.opening && pool.size < this.limits.serverConnections) this.open(pool);
  }

  /** A backend for a waiting client, started with the pool's startup message and accepted password. */
  private open(pool: Pool): void {
    pool.size += 1;
    pool.opening += 1;
    const backend = new Backend(connect(pool.target.port, pool.target.host));
    let accepted = false;
    let refusal: Buffer | null = null;
    // Refused or gone before it was ready: the client waiting longest is told, and the next client's
    // password is checked with PostgreSQL again.
    backend.onClose = () => {
      pool.opening -= 1;
      pool.password = null;
      pool.waiting.shift()?.refuse(refusal ?? errorResponse("FATAL", "08006", "the bridge could not start a PostgreSQL backend"));
      this.drop(pool, backend);
    };
    backend.onMessage = (received) => {
      const code = authenticationCode(received);
      if (code === 3) backend.socket.write(passwordMessage(pool.password ?? ""));
      if (code === 0) accepted = true;
      if (received.type === "E") refusal = received.bytes;
      if (received.type !== "Z" || !accepted) return;
      pool.opening -= 1;
      backend.relaying();
      this.idle(pool, backend);
    };
    backend.socket.write(pool.startup);
  }

  private idle(pool: Pool, backend: Backend): void {
    const idleInAll = [...this.pools.values()].reduce((sum, each) => sum + each.idle.length, 0);
    if (this.closed || backend.socket.destroyed || backend.status !== "I" || (pool.waiting.length === 0 && idleInAll >= IDLE_IN_ALL)) {
      this.drop(pool, backend);
      return;
    }
    // An idle backend is sent nothing, so anything it says is its goodbye (the FATAL of a terminated
    // backend, a server shutting down) and it goes at once, never to a client.
    backend.onType = () => this.drop(pool, backend);
    backend.onClose = () => this.drop(pool, backend);
    backend.timer = setTimeout(() => this.drop(pool, backend), IDLE_MS).unref();
    pool.idle.push(backend);
    // Handed out once the chunk that brought its last answer has been read: a goodbye in that chunk counts.
    queueMicrotask(() => this.serve(pool));
  }

  close(): void {
    this.closed = true;
    for (const pool of this.pools.values()) for (const backend of pool.idle) this.drop(pool, backend);
  }
}
