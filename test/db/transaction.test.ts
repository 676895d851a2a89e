// A transaction's scope reaches PostgreSQL as quoted literals (db/transaction.ts sends BEGIN and the
// settings in one round trip): whatever a lookup value holds arrives as that value, never as SQL. So
// does a last statement sent with the COMMIT, whose values are literals too. And no network call is
// made while a transaction is open (db/README.md, "Units of work").
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { afterAll, describe, expect, it } from "vitest";
import { openPool, useBridge } from "../../db/neon";
import { inTransaction, inTransactionEndingWith, sqlLiteral, takeRefusedNetworkCalls } from "../../db/transaction";
import { callCodehost } from "../../worker/codehost/codehost-api";
import { configFor } from "../../worker/config/for-env";

const database = inject("database");
useBridge(database.bridge);
const pool = openPool(database.app, 1);
afterAll(() => pool.end());

describe("a transaction's scope", () => {
  it.each([
    ["quotes", "it's o''clock"],
    ["backslashes", "C:\\path\\'\\\\"],
    ["an attempt to end the statement", "x', true); DROP TABLE tokens; --"],
    ["text beyond ASCII", "Zoë ✓ 𝄞"],
    ["nothing", ""],
  ])("carries a value with %s exactly", async (_what, value) => {
    const seen = await inTransaction(pool.connect, { orgId: crypto.randomUUID(), lookups: { person_email: value } }, async (tx) => {
      const { rows } = await tx.sql.query<{ value: string }>("SELECT current_setting('app.lookup_person_email') AS value");
      return rows[0]!.value;
    });
    expect(seen).toBe(value);
  });

  it("is the transaction's own: the next one on the same connection starts without it", async () => {
    const orgId = crypto.randomUUID();
    await inTransaction(pool.connect, { orgId }, async () => {});
    const after = await inTransaction(
      pool.connect,
      {},
      async (tx) => (await tx.sql.query<{ org: string }>("SELECT current_setting('app.org_id', true) AS org")).rows[0]!.org,
    );
    expect(after).toBe("");
  });

  it("runs its first statement in the round trip that opens it, seeing the settings, and hands its rows to the work", async () => {
    const orgId = crypto.randomUUID();
    const first = "SELECT current_setting('app.org_id') AS org, current_setting('app.lookup_token_hash') AS hash, 1 + 1 AS two";
    const [rows, inside] = await inTransaction(pool.connect, { orgId, lookups: { token_hash: "abc" }, first }, async (tx, found) => [
      found,
      (await tx.sql.query<{ open: boolean }>("SELECT now() = statement_timestamp() AS open")).rows[0]!.open,
    ]);
    expect(rows).toEqual([{ org: orgId, hash: "abc", two: 2 }]);
    expect(inside).toBe(false); // the work ran in the transaction the first statement opened
  });
});

describe("a last statement sent with the COMMIT", () => {
  const HOSTILE = ["it's o''clock", "C:\\path\\'\\\\", "x', true); DROP TABLE tokens; --", "Zoë ✓ 𝄞", ""];

  it.each([
    ...HOSTILE.map((text) => [text, text] as const),
    [42, "42"],
    [-7, "-7"],
    [2.5, "2.5"],
    [null, null],
    [HOSTILE, `{${HOSTILE.map((text) => `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`).join(",")}}`],
    [[], "{}"],
  ] as const)("carries %j as a literal exactly", async (value, text) => {
    const seen = await inTransaction(
      pool.connect,
      {},
      async (tx) => (await tx.sql.query<{ value: string | null }>(`SELECT (${sqlLiteral(value as never)})::text AS value`)).rows[0]!.value,
    );
    expect(seen).toBe(text);
  });

  it("commits with the work's writes in one round trip, answering its rows, and when it fails rolls back everything and leaves the connection usable", async () => {
    const marker = `app.test_marker_${crypto.randomUUID().replaceAll("-", "")}`;
    // A session-level setting changed in a transaction is undone when the transaction is.
    const set = (value: string) => `SELECT set_config(${sqlLiteral(marker)}, ${sqlLiteral(value)}, false)`;
    const read = () =>
      inTransaction(
        pool.connect,
        {},
        async (tx) => (await tx.sql.query<{ value: string | null }>(`SELECT current_setting(${sqlLiteral(marker)}, true) AS value`)).rows[0]!.value,
      );

    expect(await inTransactionEndingWith(pool.connect, {}, async () => ({ last: set("committed"), result: (rows) => rows }))).toEqual([
      { set_config: "committed" },
    ]);
    expect(await read()).toBe("committed");

    const failed = await inTransactionEndingWith(pool.connect, {}, async (tx) => {
      await tx.sql.query(set("work"));
      return { last: "SELECT 1 / 0", result: () => "never" };
    }).catch((error: { code?: string }) => error.code);
    expect(failed).toBe("22012");
    expect(await read()).toBe("committed");
  });
});

describe("a network call inside a transaction", () => {
  const apiBase = configFor(env).codehost.apiBase;
  const askCodehost = () => callCodehost(apiBase, "GET", "/rate_limit", "no-token");

  it("is refused with an error naming the rule, and recorded for the test's afterEach; made after the commit, it goes out", async () => {
    const inside = inTransaction(pool.connect, {}, async () => askCodehost());
    await expect(inside).rejects.toThrow(/The code host's API was called while a database transaction is open/);
    expect(takeRefusedNetworkCalls()).toEqual(["The code host's API"]);
    await inTransaction(pool.connect, {}, async () => null);
    expect(await askCodehost()).toHaveProperty("status");
  });

  it("is told apart per request: a call outside any transaction goes out while another request holds one", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = inTransaction(pool.connect, {}, () => held);
    const answer = await askCodehost();
    release();
    await holding;
    expect(answer).toHaveProperty("status");
    expect(takeRefusedNetworkCalls()).toEqual([]);
  });
});
