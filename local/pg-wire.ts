// Just enough of PostgreSQL's wire protocol (v3) for the bridge's pool: framing a byte stream into
// messages, reading the startup and password messages and the statement names of the extended
// protocol, and writing the few messages it answers itself.

/** A message: its type byte (absent for the startup message) and its whole bytes (type included). */
export interface WireMessage {
  type: string;
  bytes: Buffer;
  body: Buffer;
}

/**
 * Splits a stream into messages as chunks arrive. `startup` reads the first message without a type
 * byte (the client's startup message).
 */
export class MessageReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private startup = false) {}

  push(chunk: Buffer): WireMessage[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const messages: WireMessage[] = [];
    for (;;) {
      const header = this.startup ? 4 : 5;
      if (this.pending.length < header) break;
      const length = this.pending.readInt32BE(header - 4);
      const total = length + header - 4;
      if (length < 4 || this.pending.length < total) break;
      const bytes = this.pending.subarray(0, total);
      messages.push({ type: this.startup ? "" : String.fromCharCode(bytes[0]!), bytes, body: bytes.subarray(header) });
      this.pending = this.pending.subarray(total);
      this.startup = false;
    }
    return messages;
  }

  /** Bytes received but not yet a whole message. */
  rest(): Buffer {
    return this.pending;
  }
}

const PROTOCOL_3 = 196608;

/** The parameters of a protocol 3.0 startup message (user, database, ...), or null for anything else (SSL, cancel). */
export function startupParameters(message: WireMessage): Map<string, string> | null {
  if (message.body.length < 4 || message.body.readInt32BE(0) !== PROTOCOL_3) return null;
  const parts = message.body.subarray(4).toString("utf8").split("\0");
  const parameters = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i] !== ""; i += 2) parameters.set(parts[i]!, parts[i + 1]!);
  return parameters;
}

/** The null-terminated strings a message body starts with, up to `count` of them. */
function strings(body: Buffer, count: number): string[] {
  const found: string[] = [];
  for (let at = 0; found.length < count; ) {
    const end = body.indexOf(0, at);
    if (end < 0) break;
    found.push(body.subarray(at, end).toString("utf8"));
    at = end + 1;
  }
  return found;
}

/** The password of a PasswordMessage ('p'). */
export const passwordOf = (message: WireMessage) => strings(message.body, 1)[0] ?? "";

/**
 * The prepared statement a client's message names: a Parse's, a Bind's (after its portal), a
 * Describe's or a Close's of a statement ('S'); "" for the unnamed one and any other message.
 */
export function statementOf(message: WireMessage): string {
  if (message.type === "P") return strings(message.body, 1)[0] ?? "";
  if (message.type === "B") return strings(message.body, 2)[1] ?? "";
  const ofStatement = (message.type === "D" || message.type === "C") && message.body[0] === "S".charCodeAt(0);
  return ofStatement ? (strings(message.body.subarray(1), 1)[0] ?? "") : "";
}

export function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const int32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value);
  return bytes;
};

export const authenticationCleartextPassword = () => message("R", int32(3));
export const passwordMessage = (password: string) => message("p", Buffer.from(`${password}\0`, "utf8"));
export const authenticationOk = () => message("R", int32(0));
export const readyForQuery = (status: string) => message("Z", Buffer.from(status, "latin1"));
export const simpleQuery = (sql: string) => message("Q", Buffer.from(`${sql}\0`, "utf8"));

/** An ErrorResponse ('E'): severity (localized and not), SQLSTATE and message. */
export function errorResponse(severity: "ERROR" | "FATAL", code: string, text: string): Buffer {
  const fields = Object.entries({ S: severity, V: severity, C: code, M: text }).map(([field, value]) => `${field}${value}\0`);
  return message("E", Buffer.from(`${fields.join("")}\0`, "utf8"));
}

/** Whether a server message is AuthenticationOk, and which authentication it asks for otherwise. */
export const authenticationCode = (message: WireMessage) => (message.type === "R" ? message.body.readInt32BE(0) : null);

/**
 * Follows message boundaries in a stream without copying it (the bytes are relayed as they come):
 * calls `seen` with each message's type, its first body byte (a ReadyForQuery's transaction status)
 * and where its bytes in the chunk end (the chunk's end when it goes on in the next one).
 */
export class MessageBoundaries {
  private header = Buffer.alloc(6);
  private headerBytes = 0;
  private bodyLeft = 0;

  constructor(private seen: (type: string, firstByte: number | undefined, endsAt: number) => void) {}

  /** How many bytes of a message's header the last chunk ended with. */
  get partial(): number {
    return this.headerBytes;
  }

  scan(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.bodyLeft > 0) {
        const skip = Math.min(this.bodyLeft, chunk.length - at);
        this.bodyLeft -= skip;
        at += skip;
        continue;
      }
      // Type and length, and the first body byte when the message has one.
      this.header[this.headerBytes++] = chunk[at++]!;
      if (this.headerBytes < 5) continue;
      const length = this.header.readInt32BE(1);
      if (length > 4 && this.headerBytes === 5) continue;
      this.bodyLeft = Math.max(0, length - 4 - (this.headerBytes - 5));
      this.headerBytes = 0;
      this.seen(String.fromCharCode(this.header[0]!), length > 4 ? this.header[5] : undefined, Math.min(chunk.length, at + this.bodyLeft));
    }
  }
}
