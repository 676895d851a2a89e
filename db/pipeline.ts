// The round-trip pipeline: statements that ride along with a transaction's BEGIN or COMMIT in one
// simple query. A simple query takes no parameters, so these statements carry their values as quoted
// literals; this module is the only code that writes a value into SQL text, and with the driver
// adapters (neon.ts, node-pool.ts) and the migration runner the only code that speaks to the driver
// directly (db/README.md, "Where SQL lives"). Everything else goes through drizzle, whose `sql`
// template sends values as parameters.
//
// A `Statement` is branded: only `statement` and `literal` make one, and `statement` interpolates
// nothing but other statements, so a plain string (say, a value from a request) cannot be spliced in
// without passing through `literal`, which quotes it.

declare const brand: unique symbol;
/** SQL text made by this module: a statement, a fragment of one, or a quoted value. */
export type Statement = string & { readonly [brand]: "Statement" };

/** SQL text whose values were all quoted here. */
export function statement(strings: TemplateStringsArray, ...parts: readonly Statement[]): Statement {
  return strings.reduce((text, part, index) => text + (index > 0 ? parts[index - 1] : "") + part, "") as Statement;
}

/**
 * A string as an SQL literal, safe whatever `standard_conforming_strings` says: an E'' literal with
 * backslashes and quotes doubled. A NUL, which PostgreSQL text cannot hold (every input is refused
 * one where it enters: worker/http/text.ts), is refused here too: in a simple query it would end the
 * message early.
 */
function quoted(value: string): string {
  if (value.includes("\u0000")) throw new RangeError("A NUL character cannot be sent as SQL text.");
  return `E'${value.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/** A value as an SQL literal: text quoted, a finite number as written, a text array, or NULL. */
export function literal(value: string | number | readonly string[] | null): Statement {
  if (value === null) return "NULL" as Statement;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("Only a finite number has an SQL literal.");
    return `(${value})` as Statement;
  }
  if (typeof value === "string") return quoted(value) as Statement;
  return `ARRAY[${value.map(quoted).join(", ")}]::text[]` as Statement;
}

/** The organization a transaction acts as (null when it acts as none), read from its setting. */
export const ACTING_ORG = statement`NULLIF(current_setting('app.org_id'), '')::uuid`;

/**
 * The token the transaction's first statement admitted for its work (`svc_principal` with an
 * admission, db/migrations/0039), null when it admitted none: work written before any code has read
 * the token (sent in the same round trip) does nothing without it.
 */
export const ADMITTED_TOKEN = statement`NULLIF(current_setting('app.admitted_token', true), '')::uuid`;

/** A statement and how to read its rows: what a hot path sends with BEGIN (Scope.first) or COMMIT. */
export interface Piggyback<T> {
  text: Statement;
  read: (rows: Record<string, unknown>[]) => T;
}

/** The driver's raw query: only this module and the migration runner send text through it. */
export interface RawClient {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
}

/**
 * The client drizzle is given. drizzle reads every timestamp, date and interval as text (so its
 * columns can map them); its `sql` statements (no columns to map) would then answer a timestamptz as
 * PostgreSQL's text. This keeps the driver's own parsing for those (a timestamptz is a Date, as a
 * builder's timestamp column answers it) and leaves the builder's statements alone.
 */
export function forDrizzle<C extends RawClient>(client: C): C {
  const query = (config: unknown, params?: unknown[]) => {
    if (config && typeof config === "object" && (config as { rowMode?: string }).rowMode !== "array") {
      const { types: _drizzles, ...rest } = config as { types?: unknown };
      return client.query(rest as never, params);
    }
    return client.query(config as never, params);
  };
  return new Proxy(client, { get: (target, key) => (key === "query" ? query : Reflect.get(target, key)) });
}

type Results = Array<{ rows: Record<string, unknown>[] }>;

/** Sends one simple query (one or several statements) and answers each statement's rows. */
export async function send(client: RawClient, text: Statement): Promise<Record<string, unknown>[][]> {
  const answer = (await client.query(text)) as unknown as Results | { rows: Record<string, unknown>[] };
  return Array.isArray(answer) ? answer.map((result) => result.rows) : [answer.rows];
}

/** Statements joined by a separator (", " for a list): still statements. */
export const joined = (parts: readonly Statement[], separator: ", " | "; " = ", "): Statement => parts.join(separator) as Statement;

/** The settings a transaction opens with: `set_config` of each, local to the transaction. */
export function settingsOf(settings: ReadonlyArray<readonly [string, string]>): Statement {
  const calls = settings.map(([name, value]) => statement`set_config(${literal(name)}, ${literal(value)}, true)`);
  return statement`SELECT ${joined(calls)}`;
}
