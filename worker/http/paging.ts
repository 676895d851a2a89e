// Keyset pages for every list the console shows (issue 36): a page is the rows after the last row of
// the previous one in the list's key order, read as one range of an index, never with an offset. The
// cursor is that last row's key, opaque to the caller (base64url of a JSON array); a cursor this list
// did not give is refused with 400, like any other input of the wrong shape.
import { type SQL, sql } from "drizzle-orm";
import * as z from "zod";
import { Refusal } from "./refusal";
import { text } from "./text";

export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 200;

/** The paging fields of a list whose items are large enough to need a smaller page than PAGE_MAX. */
export const pagingUpTo = (max: number) => ({
  cursor: text({ max: 400 }).optional().describe("The previous page's `nextCursor`; absent for the first page."),
  limit: z.int().min(1).max(max).default(PAGE_DEFAULT).describe(`Items a page: ${PAGE_DEFAULT} unless given, at most ${max}.`),
});

/** The paging fields of a list's input. */
export const Paging = pagingUpTo(PAGE_MAX);

export interface Page<T> {
  items: T[];
  /** Pass as `cursor` for the next page; null when this page is the last. */
  nextCursor: string | null;
}

type KeyValue = string | number;

/**
 * A timestamp in a key, as PostgreSQL prints it (`created_at::text`): to the microsecond, which a
 * JavaScript Date would cut to the millisecond, and read back with `::timestamptz`.
 */
export const KeyTime = z.string().regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d(:\d\d)?$/);
export const KeyUuid = z.uuid();
export const KeySeq = z.int().min(1);

export function encodeCursor(key: readonly KeyValue[]): string {
  const bytes = new TextEncoder().encode(JSON.stringify(key));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** The key a cursor carries, checked against the list's key shape; null without a cursor. */
export function decodeCursor<const K extends readonly z.ZodType[]>(cursor: string | undefined, shape: K): { readonly [I in keyof K]: z.infer<K[I]> } | null {
  if (cursor === undefined) return null;
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")), (char) => char.charCodeAt(0)),
    );
    return z.tuple([...shape] as unknown as [z.ZodType]).parse(JSON.parse(text)) as never;
  } catch {
    throw new Refusal("invalid_request", "The cursor is not one this list gave; start again from the first page (no cursor).");
  }
}

/**
 * A page from rows read with `limit + 1`: the first `limit` as items, and when more followed, the
 * cursor of the last item's key.
 */
export function pageOf<R, T>(rows: readonly R[], limit: number, key: (row: R) => readonly KeyValue[], view: (row: R) => T): Page<T> {
  const items = rows.slice(0, limit);
  return { items: items.map(view), nextCursor: rows.length > limit ? encodeCursor(key(items.at(-1)!)) : null };
}

/**
 * The rows after `key` in the order of `columns` (ascending, or descending for a newest-first list),
 * compared as a row so that one index range answers it; true without a key.
 */
export function keyset(columns: SQL[], key: readonly unknown[] | null, direction: "asc" | "desc"): SQL {
  if (key === null) return sql`true`;
  const values = sql.join(
    key.map((value) => sql`${value}`),
    sql`, `,
  );
  return direction === "asc" ? sql`(${sql.join(columns, sql`, `)}) > (${values})` : sql`(${sql.join(columns, sql`, `)}) < (${values})`;
}
