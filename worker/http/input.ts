// The one way a request body is read: bounded (413 before it is read whole, whether its length is
// declared or it comes chunked), UTF-8, JSON by its content type, then validated with the route's zod
// schema. Failures are Refusals whose sentence names the field.
import type * as z from "zod";
import type { AppContext } from "./context";
import { Refusal } from "./refusal";

const KiB = 1024;
const MiB = 1024 * KiB;

/** Body size limits in bytes (README: Limits). */
export const BODY_LIMITS = {
  /** Every JSON route and procedure not named below. */
  default: 1 * MiB,
  /** POST /v1/events: 500 events of ordinary size; a batch of large payloads must be split. */
  events: 5 * MiB,
  /** Signed deliveries, on their raw bytes: an installation delivery lists every repository. */
  webhook: 5 * MiB,
  /** Billing deliveries, on their raw bytes: one event (a subscription or a checkout session) is kilobytes. */
  billingWebhook: 1 * MiB,
  /** The device flow's form bodies. */
  form: 16 * KiB,
} as const;

const sizeOf = (bytes: number) => (bytes >= MiB ? `${bytes / MiB} MiB` : `${bytes / KiB} KiB`);

const tooLarge = (limit: number) =>
  new Refusal("payload_too_large", `The request body is larger than ${sizeOf(limit)}, the limit here. Nothing was read or stored.`);

/**
 * The body's bytes, at most `limit` of them. A declared length over the limit is refused unread; a
 * body without one (chunked) is counted as it streams and refused as soon as it passes the limit.
 */
export async function readBytes(c: AppContext, limit: number = BODY_LIMITS.default): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(c.req.header("content-length") ?? 0);
  if (declared > limit) throw tooLarge(limit);
  const stream = c.req.raw.body;
  if (!stream) return new Uint8Array(0);
  if (declared > 0) {
    // HTTP framing holds the body to its declared length: read it at once (a 500-event batch
    // otherwise takes a read per chunk), still refusing more than the limit.
    const bytes = new Uint8Array(await c.req.raw.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return bytes;
  }
  const bytes = await readAtMost(stream, limit);
  if (!bytes) throw tooLarge(limit);
  return bytes;
}

/** A stream's bytes, counted as they arrive: null (the stream cancelled) as soon as they pass `limit`. */
export async function readAtMost(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** The bytes as text, or null when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

/** `application/json`, or any `application/<something>+json`; parameters such as charset allowed. */
export function isJsonType(contentType: string | undefined): boolean {
  const media = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return /^application\/(?:[a-z0-9.!#$&^_-]+\+)?json$/.test(media);
}

const notJsonType = (c: AppContext) =>
  new Refusal(
    "invalid_json",
    `The request body must be JSON sent with the content type application/json; this one came ${c.req.header("content-type") ? "as another type" : "with no content type"}.`,
  );

export interface BodyOptions {
  /** Bytes; BODY_LIMITS.default when left out. */
  limit?: number;
  /** What an empty (or blank) body reads as, with or without a content type, for routes whose every field is optional; refused otherwise. */
  emptyAs?: unknown;
}

/** The body parsed as JSON. Not JSON by its content type, not UTF-8, or not JSON text: 400, the spec's "body not JSON". */
async function readJson(c: AppContext, { limit, emptyAs }: BodyOptions = {}): Promise<unknown> {
  const jsonType = isJsonType(c.req.header("content-type"));
  if (!jsonType && emptyAs === undefined) throw notJsonType(c);
  const text = decodeUtf8(await readBytes(c, limit));
  if (text === null) throw new Refusal("invalid_json", "The request body is not UTF-8 text, so it is not JSON.");
  if (emptyAs !== undefined && text.trim() === "") return emptyAs;
  if (!jsonType) throw notJsonType(c);
  try {
    return JSON.parse(text);
  } catch {
    throw new Refusal("invalid_json");
  }
}

export function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length ? `\`${issue.path.join(".")}\`` : "the body";
  return `${where}: ${issue.message}`;
}

export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  throw new Refusal("invalid_request", first ? `The request is not valid: ${describeIssue(first)}.` : undefined);
}

export const readBody = async <S extends z.ZodType>(c: AppContext, schema: S, options?: BodyOptions) => validate(schema, await readJson(c, options));
