// The answer's stream as the console reads it (text/event-stream): `sources` first (the sections
// chosen, each with its site address), then `delta` events with the answer's text as the model
// writes it, then `usage` (the tokens used and what is left today), or `error` when the model's
// answer broke off. Pure, so the node tests pin the wire.
import type { Excerpt } from "./prompt";

export interface Source {
  title: string;
  /** The page on the site: the first SVC_SITE_ORIGIN and the section's path, or the path alone when none is configured. */
  url: string;
}

export const sourcesOf = (excerpts: readonly Excerpt[], siteOrigin: string | null): Source[] =>
  excerpts.map((excerpt) => ({ title: excerpt.title, url: `${siteOrigin ?? ""}${excerpt.path}` }));

const encoder = new TextEncoder();

/** One server-sent event. */
export const sseEvent = (name: "sources" | "delta" | "usage" | "error", data: unknown): Uint8Array =>
  encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);

/** The text a messages-API stream event adds to the answer, or null for any other event. */
export function textDelta(data: Record<string, unknown>): string | null {
  if (data.type !== "content_block_delta") return null;
  const delta = data.delta as Record<string, unknown> | undefined;
  return delta?.type === "text_delta" && typeof delta.text === "string" ? delta.text : null;
}
