// A moment, shown one way on every page: how far it is from now ("5 minutes ago", "in 3 hours"), with
// the exact time, in the reader's zone and in UTC, on hover (title) and on focus (so a keyboard or a
// touch reaches it too), and in the markup (dateTime). The words follow the clock while a page stays open.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

/** `2026-11-26 04:38:10 UTC`: the exact moment, whatever the reader's zone. */
export const utcText = (date: Date) => `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;

/** The exact moment in the reader's zone, then in UTC: what hovering or focusing a time shows. */
export const exactText = (date: Date) => `${date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "long" })} (${utcText(date)})`;

/**
 * `at` (an ISO time) as how far it is from now; `none` says what its absence means (default "never").
 * `lapsed` is said before a moment passed of something that ends ("expired 3 hours ago", never an
 * "Expires" of three hours ago).
 */
export function Time({ at, none = "never", lapsed }: { at: string | null; none?: string; lapsed?: string }) {
  const now = useClock();
  if (!at) return <span class="muted">{none}</span>;
  const date = new Date(at);
  const words = relativeText(date, now);
  const exact = exactText(date);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so the exact time shows on focus as on hover (the stylesheet draws it from data-exact).
    <time dateTime={date.toISOString()} title={exact} data-exact={exact} tabIndex={0}>
      {lapsed && date.getTime() < now.getTime() ? `${lapsed} ${words}` : words}
    </time>
  );
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["year", 365 * 86_400_000],
  ["month", 30 * 86_400_000],
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

/** "5 minutes ago", "in 3 hours", "yesterday", "now": the largest unit that is at least one. */
export function relativeText(date: Date, now: Date): string {
  const ms = date.getTime() - now.getTime();
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  for (const [unit, size] of UNITS) if (Math.abs(ms) >= size) return format.format(Math.round(ms / size), unit);
  return format.format(Math.round(ms / 1000), "second");
}

/** One timer for every time on the page: the current moment, renewed every 30 seconds while a time is shown. */
const listeners = new Set<(now: Date) => void>();
let ticking: ReturnType<typeof setInterval> | null = null;

function useClock(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    listeners.add(setNow);
    ticking ??= setInterval(() => {
      const moment = new Date();
      for (const listener of listeners) listener(moment);
    }, 30_000);
    return () => {
      listeners.delete(setNow);
      if (listeners.size === 0 && ticking !== null) {
        clearInterval(ticking);
        ticking = null;
      }
    };
  }, []);
  return now;
}

/** A credential's state cell: when it was revoked, or (still live) what revokes it. */
export function RevokedOr({ at, children }: { at: string | null; children: ComponentChildren }) {
  return at ? (
    <>
      revoked <Time at={at} />
    </>
  ) : (
    children
  );
}
