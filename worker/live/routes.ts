// GET /console/api/live: the console's live channel, a WebSocket to the organization's object
// (durable-objects/live.ts). Who, then what: the session, membership and each topic's permission are
// checked here, with the organization not suspended, before the socket is handed over.
import { eq, sql } from "drizzle-orm";
import type { Hono } from "hono";
import * as z from "zod";
import { organizations } from "../../db/schema/organizations";
import type { Tx } from "../../db/transaction";
import { Denied } from "../auth";
import type { AppContext, AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import { type Replied, refusal, register, route, serverFailure } from "../openapi/declaration";
import { liveChannel, WATCHER_HEADER } from "../object-calls";
import type { Watcher } from "../object-interfaces";
import { LIVE_CALL_MS } from "../live-channel";
import { within } from "../../db/deadline";
import { asSessionMember } from "../sessions";
import { LIVE_MAX_AGE_MS, LIVE_TOPICS, type LiveTopic } from "../shared/live";
import { roleAllows } from "../shared/permissions";

const LiveQuery = z.object({
  orgId: z.uuid().describe("The organization whose changes to hear."),
  topics: text({ min: 1, max: 100 })
    .transform((list) => [...new Set(list.split(","))])
    .pipe(z.array(z.enum(Object.keys(LIVE_TOPICS) as [LiveTopic, ...LiveTopic[]])).min(1))
    .describe(`Comma-separated: ${Object.keys(LIVE_TOPICS).join(", ")}.`),
});

const openLive = route({
  method: "get",
  path: "/console/api/live",
  operationId: "openLiveChannel",
  summary: "Open the console's live channel (a WebSocket)",
  description:
    "Upgrade to a WebSocket from the console's own origin. Each message is JSON `{ topic, envId? }`: something of that topic changed " +
    "(no data; the page reads it again). The server closes with 4000 to be opened again (age, a changed role) and 4403 when the " +
    "session, membership or organization no longer allows it (the reason says which). `ping` is answered `pong`.",
  tag: "console",
  // Not in the contract's list of operations (worker/live/README.md describes it).
  published: false,
  security: ["session"],
  gate: "reachable",
  query: LiveQuery,
  responses: {
    101: { description: "Switching protocols: the channel is open" },
    400: refusal("Not a WebSocket upgrade, or a topic this service does not know"),
    401: refusal("No session"),
    403: refusal("Another origin, a role without a topic's permission, or the organization suspended"),
    404: refusal("No such organization (or not a member)"),
    429: refusal("The person, or the organization, holds as many channels as it may (LIVE_LIMITS)"),
    500: serverFailure,
  },
  // Who, then what: the session and membership first (401, 404), then the origin and each topic's
  // permission (403), and only then whether the request is a WebSocket upgrade at all (400).
  handler: async (c, { query: { orgId, topics } }) => {
    const checkedAt = Date.now();
    const watcher = await asSessionMember(c, orgId, null, async (tx, grant, session): Promise<Watcher> => {
      if (!ownOrigin(c)) throw new Refusal("forbidden", "The live channel opens only from this console's own pages (the request's Origin is another site).");
      const refused = topics.find((topic) => !roleAllows(grant.role, LIVE_TOPICS[topic]));
      if (refused) throw new Denied("role", `Your role (${grant.role}) does not include ${LIVE_TOPICS[refused]}, needed to hear ${refused}.`);
      const [org] = await tx.select({ suspendedAt: organizations.suspendedAt }).from(organizations).where(eq(organizations.id, orgId));
      if (org?.suspendedAt)
        throw new Refusal("organization_suspended", "The organization is suspended: its console shows no live changes until the suspension is lifted.");
      if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
        throw new Refusal("invalid_request", "Open the live channel as a WebSocket (Upgrade: websocket).");
      await markWatched(tx, orgId);
      return { personId: grant.personId, sessionId: session.id, topics, checkedAt };
    });
    const upgrade = new Request(c.req.url, { headers: { upgrade: "websocket", [WATCHER_HEADER]: JSON.stringify(watcher) } });
    // A 101 carries a socket, not a body the declaration could type.
    return (await within(liveChannel(c.env, orgId).fetch(upgrade), LIVE_CALL_MS, "An organization's live channel")) as Replied;
  },
});

/**
 * A browser sends the session cookie with any site's WebSocket: the channel opens only from this
 * console's pages (the request's own origin, or SVC_APP_BASE_URL's). A client that is no browser sends no Origin.
 */
function ownOrigin(c: AppContext): boolean {
  const origin = c.req.header("origin");
  const configured = c.var.config.server.appBaseUrl;
  return origin === undefined || origin === new URL(c.req.url).origin || (configured !== null && origin === new URL(configured).origin);
}

/**
 * Whoever commits a change tells the live object only while `watched_until` is ahead (migrations/0038).
 * A channel lives at most LIVE_MAX_AGE_MS: each opening keeps the mark past that, written only when it
 * would fall short of it, so a burst of openings is one write.
 */
async function markWatched(tx: Tx, orgId: string): Promise<void> {
  await tx.execute(sql`UPDATE organizations SET watched_until = now() + make_interval(secs => ${WATCHED_AHEAD_S})
    WHERE id = ${orgId} AND (watched_until IS NULL OR watched_until < now() + make_interval(secs => ${LIVE_MAX_AGE_MS / 1000 + 60}))`);
}

/** How far ahead an opening marks the organization watched: a channel's longest life, and five minutes. */
const WATCHED_AHEAD_S = LIVE_MAX_AGE_MS / 1000 + 300;

export function registerLive(app: Hono<AppEnv>): void {
  register(app, openLive);
}
