// The organization's live channel (worker/live/README.md): one WebSocket per signed-in page frame,
// opened again with backoff when it drops, and pages that read again what a change concerns. A
// change carries no data: the page asks the server, with the person's own permissions.
import { createContext } from "preact";
import { useContext, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { LIVE_CLOSE, type LiveChange, type LiveMessage, type LiveTopic } from "../../worker/shared/live";

export type LiveState = { kind: "connecting" } | { kind: "live" } | { kind: "reconnecting" } | { kind: "ended"; reason: string };

/** A change, or "opened": the channel (re)opened, and whatever changed while it was down must be read. */
type Listener = (heard: LiveChange | "opened") => void;

interface LiveHub {
  subscribe: (listener: Listener) => () => void;
}

const HubContext = createContext<LiveHub | null>(null);
export const LiveStateContext = createContext<LiveState | null>(null);
export const LiveHubProvider = HubContext.Provider;

/** The browser's keep-alive (answered by the server without waking anything), under proxies' idle limits. */
const KEEP_ALIVE_MS = 30_000;
/** Backoff after a drop: 1 s doubling to 30 s, each with jitter, so a restart is not met by every browser at once. */
const backoff = (attempt: number) => Math.min(30_000, 1000 * 2 ** attempt) * (0.5 + Math.random() / 2);

/** Keeps the organization's channel open for `topics` while the component lives. */
export function useLiveChannel(orgId: string | null, topics: readonly LiveTopic[]): { hub: LiveHub; state: LiveState } {
  const listeners = useRef(new Set<Listener>());
  const hub = useMemo<LiveHub>(
    () => ({
      subscribe: (listener) => {
        listeners.current.add(listener);
        return () => listeners.current.delete(listener);
      },
    }),
    [],
  );
  const [state, setState] = useState<LiveState>({ kind: "connecting" });
  const wanted = topics.join(",");
  useEffect(() => {
    if (!orgId || !wanted) return;
    let socket: WebSocket | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let keepAlive: ReturnType<typeof setInterval> | undefined;
    let attempt = 0;
    let stopped = false;
    const tell = (heard: LiveChange | "opened") => {
      for (const listener of listeners.current) listener(heard);
    };
    const connect = () => {
      const url = new URL("/console/api/live", location.href);
      url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      url.search = new URLSearchParams({ orgId, topics: wanted }).toString();
      const current = new WebSocket(url);
      socket = current;
      current.onopen = () => {
        attempt = 0;
        setState({ kind: "live" });
        keepAlive = setInterval(() => current.send("ping"), KEEP_ALIVE_MS);
        tell("opened");
      };
      // The first word of an end decides: the server's closing line, or the close itself.
      let ended = false;
      const end = (code: number, reason: string) => {
        if (ended) return;
        ended = true;
        clearInterval(keepAlive);
        if (stopped) return;
        if (code === LIVE_CLOSE.ended) {
          setState({ kind: "ended", reason });
          return;
        }
        setState({ kind: "reconnecting" });
        retry = setTimeout(connect, code === LIVE_CLOSE.renew ? 0 : backoff(attempt++));
      };
      current.onmessage = (event) => {
        if (event.data === "pong") return;
        const message = JSON.parse(event.data as string) as LiveMessage;
        if ("closing" in message) {
          end(message.closing.code, message.closing.reason);
          current.close();
        } else tell(message);
      };
      current.onclose = (event) => end(event.code, event.reason);
    };
    setState({ kind: "connecting" });
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      clearInterval(keepAlive);
      socket?.close(1000);
    };
  }, [orgId, wanted]);
  return { hub, state };
}

/** What a page shows: the topics it reads, and its environment when it shows one. */
export interface LiveInterest {
  topics: readonly LiveTopic[];
  envId?: string;
}

/** How soon after a change the page reads again: a burst of changes is one read. */
const SETTLE_MS = 150;

/**
 * Once more this long after the channel opens: a change whose transaction began before the opening
 * marked the organization watched was told to nobody (worker/live/README.md), and has committed by now.
 */
const OPENED_AGAIN_MS = 2000;

/** Calls `reload` when a change concerns `interest`, and when the channel (re)opens. */
export function useLiveReload(interest: LiveInterest | undefined, reload: () => void): void {
  const hub = useContext(HubContext);
  const latest = useRef(reload);
  latest.current = reload;
  const key = interest ? `${interest.topics.join(",")}/${interest.envId ?? ""}` : null;
  useEffect(() => {
    if (!hub || !interest) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let again: ReturnType<typeof setTimeout> | undefined;
    const concerns = (heard: LiveChange | "opened") =>
      heard === "opened" || (interest.topics.includes(heard.topic) && (!interest.envId || !heard.envId || heard.envId === interest.envId));
    const stop = hub.subscribe((heard) => {
      if (!concerns(heard)) return;
      clearTimeout(timer);
      timer = setTimeout(() => latest.current(), SETTLE_MS);
      if (heard === "opened") {
        clearTimeout(again);
        again = setTimeout(() => latest.current(), OPENED_AGAIN_MS);
      }
    });
    return () => {
      stop();
      clearTimeout(timer);
      clearTimeout(again);
    };
  }, [hub, key]);
}
