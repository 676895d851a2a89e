// One object per organization: the console's live channel (worker/live/README.md). Browsers hold
// WebSockets accepted with the hibernation API, so while they are idle the object is evicted and
// costs no duration; a change wakes it, it writes one line to each socket listening to the change's
// topic, and it sleeps again. It reads nothing of the database: who may listen was checked by the
// Worker's route before the socket reached it, and what it stores is the alarm that renews old
// sockets and, for a minute, the ends it was told of (a check made before one must not open a socket).
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../worker/env";
import { WATCHER_HEADER } from "../worker/object-calls";
import type { LiveApi, LiveAudience, Watcher } from "../worker/object-interfaces";
import { LIVE_CLOSE, LIVE_LIMITS, LIVE_MAX_AGE_MS, type LiveChange, type LiveClosing } from "../worker/shared/live";

interface Attachment extends Watcher {
  openedAt: number;
}

/** An end the object was told of: its audience's tag, when, and what the sockets were told. */
interface EndMark {
  at: number;
  code: number;
  reason: string;
}

/**
 * How long an end is remembered: well past the route's check and its call here (LIVE_CALL_MS); and how
 * far apart the Worker's clock and the object's may be.
 */
const END_KEPT_MS = 60_000;
const CLOCK_SLACK_MS = 1_000;
const EVERYONE = "everyone";

const tagOf = (audience: LiveAudience) =>
  audience === "everyone" ? EVERYONE : "personId" in audience ? `person:${audience.personId}` : `session:${audience.sessionId}`;

export class LiveChannel extends DurableObject<Env> implements LiveApi {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // The browser's keep-alive is answered by the platform without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  override async fetch(request: Request): Promise<Response> {
    const watcher = JSON.parse(request.headers.get(WATCHER_HEADER) ?? "null") as Watcher | null;
    if (!watcher || request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response(null, { status: 400 });
    const full =
      this.ctx.getWebSockets(`person:${watcher.personId}`).length >= LIVE_LIMITS.perPerson
        ? `You have ${LIVE_LIMITS.perPerson} live channels of this organization open; close a tab to open another.`
        : this.ctx.getWebSockets().length >= LIVE_LIMITS.perOrganization
          ? `This organization has ${LIVE_LIMITS.perOrganization} live channels open; try again later.`
          : null;
    if (full) return Response.json({ error: full, retryAfterSeconds: 60 }, { status: 429, headers: { "retry-after": "60" } });
    const [browser, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    const tags = [`person:${watcher.personId}`, `session:${watcher.sessionId}`, ...watcher.topics.map((topic) => `topic:${topic}`)];
    this.ctx.acceptWebSocket(server, tags);
    server.serializeAttachment({ ...watcher, openedAt: Date.now() } satisfies Attachment);
    // Ended after the route began its check (which then could not see it): closed at once, saying why.
    // A renewal (a changed role) is compared without slack, so that the reopening it asks for stays open.
    const ended = [EVERYONE, tags[0]!, tags[1]!]
      .map((tag) => this.ctx.storage.kv.get<EndMark>(`end:${tag}`))
      .find((mark) => mark !== undefined && mark.at >= watcher.checkedAt + (mark.code === LIVE_CLOSE.renew ? 1 : -CLOCK_SLACK_MS));
    if (ended) endSocket(server, ended.code, ended.reason);
    else if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + LIVE_MAX_AGE_MS);
    return new Response(null, { status: 101, webSocket: browser });
  }

  publish(change: LiveChange): number {
    const sockets = this.ctx.getWebSockets(`topic:${change.topic}`);
    const line = JSON.stringify(change);
    for (const socket of sockets) sendOrDrop(socket, line);
    return sockets.length;
  }

  end(audience: LiveAudience, code: number, reason: string): number {
    const tag = tagOf(audience);
    const now = Date.now();
    for (const [key, mark] of this.ctx.storage.kv.list<EndMark>({ prefix: "end:" })) if (now - mark.at > END_KEPT_MS) this.ctx.storage.kv.delete(key);
    this.ctx.storage.kv.put(`end:${tag}`, { at: now, code, reason } satisfies EndMark);
    const sockets = this.ctx.getWebSockets(tag === EVERYONE ? undefined : tag);
    for (const socket of sockets) endSocket(socket, code, reason);
    return sockets.length;
  }

  /** Asks the sockets past their age to open again, then wakes for the oldest one left (none: no alarm). */
  override async alarm(): Promise<void> {
    const now = Date.now();
    let oldest: number | null = null;
    for (const socket of this.ctx.getWebSockets()) {
      const { openedAt } = socket.deserializeAttachment() as Attachment;
      if (now - openedAt >= LIVE_MAX_AGE_MS) endSocket(socket, LIVE_CLOSE.renew, "Open the channel again.");
      else oldest = Math.min(oldest ?? openedAt, openedAt);
    }
    if (oldest !== null) await this.ctx.storage.setAlarm(oldest + LIVE_MAX_AGE_MS);
  }

  // The browser sends nothing but keep-alives, which the auto-response answers without waking the
  // object: anything that reaches here is something else, and ends the socket.
  override webSocketMessage(socket: WebSocket): void {
    endSocket(socket, LIVE_CLOSE.unexpected, "The live channel takes only ping.");
  }

  override webSocketClose(socket: WebSocket, code: number, reason: string): void {
    // Completes the closing handshake the browser began (1005 and 1006 may not be sent back).
    closeQuietly(socket, code === 1005 || code === 1006 ? 1000 : code, reason);
  }

  override webSocketError(): void {}
}

// A socket whose browser went away throws on send or close; the platform drops it, nothing to report.
function sendOrDrop(socket: WebSocket, line: string): void {
  try {
    socket.send(line);
  } catch {}
}

/** Says why (LiveClosing), then closes. */
function endSocket(socket: WebSocket, code: number, reason: string): void {
  sendOrDrop(socket, JSON.stringify({ closing: { code, reason } } satisfies LiveClosing));
  closeQuietly(socket, code, reason);
}

function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {}
}
