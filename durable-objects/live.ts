// One object per organization: the console's live channel (worker/live/README.md). Browsers hold
// WebSockets accepted with the hibernation API, so while they are idle the object is evicted and
// costs no duration; a change wakes it, it writes one line to each socket listening to the change's
// topic, and it sleeps again. It reads nothing and stores nothing but the alarm that renews old sockets:
// who may listen was checked by the Worker's route before the socket reached it.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../worker/env";
import { WATCHER_HEADER } from "../worker/objects";
import type { LiveApi, LiveAudience, Watcher } from "../worker/object-apis";
import { LIVE_CLOSE, LIVE_MAX_AGE_MS, type LiveChange, type LiveClosing } from "../worker/shared/live";

interface Attachment extends Watcher {
  openedAt: number;
}

export class LiveChannel extends DurableObject<Env> implements LiveApi {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // The browser's keep-alive is answered by the platform without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  override async fetch(request: Request): Promise<Response> {
    const watcher = JSON.parse(request.headers.get(WATCHER_HEADER) ?? "null") as Watcher | null;
    if (!watcher || request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response(null, { status: 400 });
    const [browser, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    const tags = [`person:${watcher.personId}`, `session:${watcher.sessionId}`, ...watcher.topics.map((topic) => `topic:${topic}`)];
    this.ctx.acceptWebSocket(server, tags);
    server.serializeAttachment({ ...watcher, openedAt: Date.now() } satisfies Attachment);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + LIVE_MAX_AGE_MS);
    return new Response(null, { status: 101, webSocket: browser });
  }

  publish(change: LiveChange): number {
    const sockets = this.ctx.getWebSockets(`topic:${change.topic}`);
    const line = JSON.stringify(change);
    for (const socket of sockets) sendOrDrop(socket, line);
    return sockets.length;
  }

  end(audience: LiveAudience, code: number, reason: string): number {
    const tag = audience === "everyone" ? undefined : "personId" in audience ? `person:${audience.personId}` : `session:${audience.sessionId}`;
    const sockets = this.ctx.getWebSockets(tag);
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

  // The browser sends nothing but keep-alives, which the auto-response answers.
  override webSocketMessage(): void {}

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
