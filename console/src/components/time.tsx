// A moment as the reader reads it: in their own time zone, with the exact UTC time on hover (title)
// and in the markup (dateTime), so nobody has to guess which zone a time is in.
import type { ComponentChildren } from "preact";

/** `2026-11-26 04:38:10 UTC`: the exact moment, whatever the reader's zone. */
export const utcText = (date: Date) => `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;

/** `at` (an ISO time) in the reader's zone (`zone`: naming it, as the long time style does); `none` says what its absence means (default "never"). */
export function Time({ at, none = "never", zone, children }: { at: string | null; none?: string; zone?: true; children?: ComponentChildren }) {
  if (!at) return <span class="muted">{none}</span>;
  const date = new Date(at);
  return (
    <time dateTime={date.toISOString()} title={utcText(date)}>
      {children ?? date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: zone ? "long" : "short" })}
    </time>
  );
}

/** How far `at` is from now, in words ("in 3 hours", "5 minutes ago"), as a Time with the exact UTC on hover. */
export function Relative({ at }: { at: string }) {
  return <Time at={at}>{relativeText(new Date(at), new Date())}</Time>;
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

export function relativeText(date: Date, now: Date): string {
  const ms = date.getTime() - now.getTime();
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  for (const [unit, size] of UNITS) if (Math.abs(ms) >= size) return format.format(Math.round(ms / size), unit);
  return format.format(Math.round(ms / 1000), "second");
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
