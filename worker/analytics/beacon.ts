// The site beacon's events, judged one by one against the closed catalog and recorded in the
// insert-only stream (db/migrations/0020_site_analytics.sql). A refused event is counted with its
// reason and the rest of the batch goes on; a retried event collides on its identifier and is counted
// as a duplicate. The browser's session identifier is stored only as a keyed pseudonym.
import { siteEventRejects, siteEvents } from "../../db/schema/site";
import { inTransaction, type Connection, type Tx } from "../../db/transaction";
import { BeaconEvent as BeaconEventShape, type Channel, EVENT_CATALOG, isEventName, SESSION_ID, type EventName } from "./catalog";

export { MAX_BEACON_EVENTS } from "./catalog";

export type RefusalReason = "unknown_name" | "undeclared_field" | "invalid_field" | "malformed";
export type Outcome = { outcome: "recorded" } | { outcome: "duplicate" } | { outcome: "refused"; reason: RefusalReason };

export interface BeaconEvent {
  id: string;
  name: EventName;
  session: string;
  channel: Channel;
  page: string;
  campaign: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ENVELOPE = new Set(["id", "name", "session", "props"]);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** One event against the catalog: the event to record, or why it is refused. */
export function judge(raw: unknown): BeaconEvent | RefusalReason {
  if (!isRecord(raw) || typeof raw.id !== "string" || !UUID.test(raw.id) || typeof raw.session !== "string" || !SESSION_ID.test(raw.session))
    return "malformed";
  if (!isEventName(raw.name)) return "unknown_name";
  const props = raw.props ?? {};
  if (!isRecord(props)) return "malformed";
  const fields = EVENT_CATALOG[raw.name].fields;
  if (Object.keys(raw).some((key) => !ENVELOPE.has(key)) || Object.keys(props).some((key) => !Object.hasOwn(fields, key))) return "undeclared_field";
  for (const [key, rule] of Object.entries(fields)) {
    const value = props[key];
    if (value === undefined ? rule.required : !rule.accepts(value)) return "invalid_field";
  }
  // The published shape agrees (and every string it takes is storable text).
  if (!BeaconEventShape.safeParse(raw).success) return "invalid_field";
  return {
    id: raw.id.toLowerCase(),
    name: raw.name,
    session: raw.session,
    channel: props.channel as Channel,
    page: props.page as string,
    campaign: (props.campaign as string | null | undefined) ?? null,
  };
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

/** HMAC-SHA256 of the browser's session identifier under the surrogate secret, as hex. */
async function sessionKeyer(surrogateSecret: string): Promise<(session: string) => Promise<string>> {
  const key = await crypto.subtle.importKey("raw", hexBytes(surrogateSecret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return async (session) => {
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`site-session:${session}`)));
    return Array.from(mac, (byte) => byte.toString(16).padStart(2, "0")).join("");
  };
}

// No conflict target: naming one (`ON CONFLICT (id)`) needs SELECT on it, which the role must not hold.
// Sent through `execute` for its row count (RETURNING would need SELECT too).
const insertEvent = (tx: Tx, event: typeof siteEvents.$inferInsert) => tx.execute(tx.insert(siteEvents).values(event).onConflictDoNothing());
const insertReject = (tx: Tx, reason: typeof siteEventRejects.$inferInsert.reason) => tx.insert(siteEventRejects).values({ reason });

/**
 * Records the batch in one transaction as the application role, which can insert into the stream
 * and never read it: a duplicate is told by the insert's row count, not by a read.
 */
export async function recordBeaconBatch(connect: () => Promise<Connection>, surrogateSecret: string, events: unknown[]): Promise<Outcome[]> {
  const keyOf = await sessionKeyer(surrogateSecret);
  return inTransaction(connect, {}, async (tx: Tx) => {
    const outcomes: Outcome[] = [];
    for (const raw of events) {
      const judged = judge(raw);
      if (typeof judged === "string") {
        await insertReject(tx, judged);
        outcomes.push({ outcome: "refused", reason: judged });
        continue;
      }
      const { rowCount } = await insertEvent(tx, {
        id: judged.id,
        name: judged.name,
        sessionKey: await keyOf(judged.session),
        channel: judged.channel,
        page: judged.page,
        campaign: judged.campaign,
      });
      if (rowCount === 1) outcomes.push({ outcome: "recorded" });
      else {
        await insertReject(tx, "duplicate");
        outcomes.push({ outcome: "duplicate" });
      }
    }
    return outcomes;
  });
}
