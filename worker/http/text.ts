// The one way a request's text is accepted. PostgreSQL refuses a NUL character in text and jsonb, and
// a lone surrogate has no UTF-8 form, so a string holding either fails the statement storing it: one
// bad field would be a 500 for the whole request. Every string a route or procedure takes goes
// through `text` (or `storable`, `storableJson`) with a documented maximum, so it is refused where it
// enters: a 400 naming the field, or one event's `reason`. A test walks every input schema for it.
import * as z from "zod";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** How deep a stored JSON value may nest: PostgreSQL and the JSON encoder both recurse. */
export const JSON_MAX_DEPTH = 32;

/** Why PostgreSQL could not store `value`, as the end of a sentence; null when it can. */
export function unstorable(value: string): string | null {
  if (value.includes("\u0000")) return "must not contain a NUL character (\\u0000)";
  if (LONE_SURROGATE.test(value)) return "must not contain a lone surrogate (\\ud800 to \\udfff unpaired)";
  return null;
}

// The checks this module adds, so a test can tell a guarded schema from a bare z.string().
const guards = new WeakSet<object>();
function guard<T>(check: z.core.$ZodCheck<T>): z.core.$ZodCheck<T> {
  guards.add(check);
  return check;
}

/** True when `schema` carries this module's check (the walk over every input schema asks). */
export const isGuarded = (schema: z.ZodType): boolean => (schema._zod.def.checks ?? []).some((check) => guards.has(check));

const STORABLE_TEXT = guard(
  z.superRefine<string>((value, ctx) => {
    const why = unstorable(value);
    if (why) ctx.addIssue({ code: "custom", message: why, input: value });
  }),
);

/** Adds the storable-text check to a string of another shape (a URL, a pattern); bound its length too. */
export const storable = <S extends z.ZodString | z.ZodStringFormat>(schema: S): S => schema.check(STORABLE_TEXT) as S;

/** A string of at most `max` characters (UTF-16 code units) that PostgreSQL can store. */
export function text({ min = 0, max }: { min?: number; max: number }): z.ZodString {
  const bounded = z.string().max(max, `must be at most ${max} characters`);
  return storable(min > 0 ? bounded.min(min, min === 1 ? "must not be empty" : `must be at least ${min} characters`) : bounded);
}

type Problem = { path: PropertyKey[]; message: string };

/**
 * The first key or value of parsed JSON that PostgreSQL could not store, or too deep a nesting (the
 * path built on the way out, only for a problem found); `size.bound` grows by an upper bound of the
 * value's size as UTF-8 JSON: at most 6 bytes per UTF-16 unit of a string (a \uXXXX escape), 25 for
 * a number, 5 for true, false or null, and the quotes, colons, commas and brackets around them.
 */
function jsonProblem(value: unknown, depth: number, size: { bound: number }): Problem | null {
  if (typeof value === "string") {
    size.bound += value.length * 6 + 2;
    const why = unstorable(value);
    return why ? { path: [], message: why } : null;
  }
  if (value === null || typeof value !== "object") {
    size.bound += 25;
    return null;
  }
  if (depth > JSON_MAX_DEPTH) return { path: [], message: `must not nest more than ${JSON_MAX_DEPTH} levels deep` };
  size.bound += 2;
  for (const [key, item] of Object.entries(value)) {
    size.bound += key.length * 6 + 4;
    const why = unstorable(key);
    if (why) return { path: [], message: `has a key that ${why}` };
    const problem = jsonProblem(item, depth + 1, size);
    if (problem) {
      problem.path.unshift(Array.isArray(value) ? Number(key) : key);
      return problem;
    }
  }
  return null;
}

const utf8 = new TextEncoder();

/**
 * A JSON object stored as jsonb: no NUL or lone surrogate in any key or value, nested at most
 * JSON_MAX_DEPTH deep, and at most `maxBytes` once encoded as UTF-8 JSON. The size is measured only
 * when the walk's upper bound says it could matter (every event's payload is checked; nearly all are
 * far below).
 */
export function storableJson(maxBytes: number) {
  const check = guard(
    z.superRefine<Record<string, unknown>>((value, ctx) => {
      const size = { bound: 0 };
      const problem = jsonProblem(value, 1, size);
      if (problem) ctx.addIssue({ code: "custom", path: problem.path, message: problem.message, input: value });
      else if (size.bound > maxBytes && utf8.encode(JSON.stringify(value)).byteLength > maxBytes) {
        ctx.addIssue({ code: "custom", message: `must be at most ${maxBytes} bytes as UTF-8 JSON`, input: value });
      }
    }),
  );
  return z
    .record(z.string(), z.unknown())
    .check(check)
    .describe(
      `A JSON object of at most ${maxBytes} bytes (UTF-8), nested at most ${JSON_MAX_DEPTH} levels, with no NUL character or lone surrogate in any key or value.`,
    );
}

/** A name people give and read (organization, engine token, workload): trimmed, 1 to 100 characters. */
export const DisplayName = text({ max: 100 }).trim().min(1, "must not be empty");
