// The pipeline (db/pipeline.ts) is the one place values become SQL text: the statements that ride
// with BEGIN (a scope's settings and first look-up) and those sent in an open transaction. Whatever a value holds arrives as
// that value, never as SQL, whatever the session's standard_conforming_strings says.
import { sql } from "drizzle-orm";
import { inject } from "vitest";
import { afterAll, describe, expect, it } from "vitest";
import { openPool, useBridge } from "../../db/neon";
import { literal, statement, type Statement } from "../../db/pipeline";
import { inTransaction } from "../../db/transaction";

const database = inject("database");
useBridge(database.bridge);
const pool = openPool(database.app, "svc_app", 1);
afterAll(() => pool.end());

const HOSTILE = ["it's o''clock", "C:\\path\\'\\\\", "\\'; SELECT 1; --", "x', true); DROP TABLE tokens; --", "Zoë ✓ 𝄞", "$1 $$ E'\\x41'", ""];
const HUGE = `'\\${"a'\\b".repeat(400_000)}`; // 1.6 MB of quotes and backslashes

/** `value` sent as a literal, read back as text; `conforming` sets standard_conforming_strings first. */
const roundTrip = (value: Parameters<typeof literal>[0], conforming: "on" | "off" = "on") =>
  inTransaction(pool.connect, {}, async (tx, _first, send) => {
    await tx.execute(sql`SELECT set_config('standard_conforming_strings', ${conforming}, true)`);
    return (await send(statement`SELECT (${literal(value)})::text AS value`))[0]!.value as string | null;
  });

describe("a literal", () => {
  it.each([
    ...HOSTILE.map((text) => [text, text] as const),
    [42, "42"],
    [-7, "-7"],
    [2.5, "2.5"],
    [null, null],
    [HOSTILE, `{${HOSTILE.map((text) => `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")}}`],
    [[], "{}"],
  ] as const)("carries %j exactly, with standard_conforming_strings on and off", async (value, text) => {
    expect(await roundTrip(value)).toBe(text);
    expect(await roundTrip(value, "off")).toBe(text);
  });

  it("carries a huge value exactly", async () => {
    expect(await roundTrip(HUGE, "off")).toBe(HUGE);
  });

  it("refuses a NUL (PostgreSQL text cannot hold one) before anything is sent, and refuses a number that has no literal", () => {
    expect(() => literal("a\u0000b")).toThrow(/NUL/);
    expect(() => literal(Number.NaN)).toThrow(/finite/);
    expect(() => literal(Number.POSITIVE_INFINITY)).toThrow(/finite/);
  });

  it("carries a scope's settings exactly, a NUL refused and the connection still usable", async () => {
    for (const value of [...HOSTILE, HUGE]) {
      const seen = await inTransaction(pool.connect, { lookups: { person_email: value } }, async (tx) => {
        return (await tx.execute<{ value: string }>(sql`SELECT current_setting('app.lookup_person_email') AS value`)).rows[0]!.value;
      });
      expect(seen).toBe(value);
    }
    await expect(inTransaction(pool.connect, { lookups: { person_email: "a\u0000b" } }, async () => "ran")).rejects.toThrow(/NUL/);
    expect(await inTransaction(pool.connect, {}, async () => "usable")).toBe("usable");
  });

  it("splices in nothing but statements: a plain string does not type-check", () => {
    const fromRequest = "x'; DROP TABLE tokens; --";
    // @ts-expect-error a string is not a Statement: it must pass through literal()
    const spliced: Statement = statement`SELECT ${fromRequest}`;
    expect(statement`SELECT ${literal(fromRequest)}`).toBe("SELECT E'x''; DROP TABLE tokens; --'");
    expect(spliced).toContain("DROP"); // what the type check keeps out
  });
});
