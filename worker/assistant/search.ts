// The documentation index's shape and its search options, shared by the generator that builds it
// (scripts/assistant-docs.ts) and the Worker that loads it: MiniSearch needs the same options on
// both sides, or a loaded index finds nothing.
import type { Options, SearchOptions } from "minisearch";

/** One section of the documentation: a heading's text, with the site path that shows it. */
export interface DocSection {
  id: number;
  title: string;
  /** The path on the site (`/docs/#engine`, `/docs/errors#rate_limited`); the origin is added per request. */
  path: string;
  text: string;
}

// Words that say nothing about which page answers ("how do I ...?"): left out of the index and of
// every query, so they neither score nor cost.
const STOP_WORDS = new Set(
  "a an and are as at be by can do does for from how i if in is it its me my of on or our so that the their this to we what when where which who why will with you your".split(
    " ",
  ),
);

export const processTerm = (term: string): string | null => {
  const lower = term.toLowerCase();
  return lower.length < 2 || STOP_WORDS.has(lower) ? null : lower;
};

export const INDEX_OPTIONS: Options<DocSection> = {
  fields: ["title", "text"],
  storeFields: ["title", "path", "text"],
  processTerm,
};

/**
 * The guides (the site's pages) answer "how do I" better than a list of operations or codes, whose
 * short sections would otherwise outscore them on a shared word.
 */
const boostDocument = (_id: unknown, _term: string, stored?: Record<string, unknown>) => {
  const path = String(stored?.path);
  return path.startsWith("/docs/api") ? 0.6 : path.startsWith("/docs/errors") ? 1 : 2.5;
};

// Prefixes and typos only for longer words: a short one would match half the index.
export const QUERY_OPTIONS: SearchOptions = {
  boost: { title: 2 },
  boostDocument,
  prefix: (term) => term.length >= 5,
  fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
  combineWith: "OR",
};
