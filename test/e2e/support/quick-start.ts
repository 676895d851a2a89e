// The README's quick start as the tests read it: the event its curl sends (a here-document), so that
// the browser test sends exactly that and a node test validates it.

/** The login the quick start signs in as, and so its organization's slug and its repository's owner. */
export const QUICK_START_LOGIN = "alice";

/** The events of the quick start's `curl ... -d @- <<EOF` body, with the shell's `$(date ...)` as `now`. */
export function quickStartEvents(readme: string, now: string): Array<Record<string, unknown>> {
  const body = /-d @- <<EOF\n([\s\S]*?)\nEOF/.exec(readme)?.[1];
  if (!body) throw new Error("README.md's quick start has no event body (a `-d @- <<EOF` here-document)");
  return (JSON.parse(body.replaceAll("$(date -u +%FT%TZ)", now)) as { events: Array<Record<string, unknown>> }).events;
}
