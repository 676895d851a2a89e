// A transaction's scope reaches PostgreSQL as quoted literals (db/transaction.ts sends BEGIN and the
// settings in one round trip through db/pipeline.ts): whatever a lookup value holds arrives as that
// value, never as SQL (test/db/pipeline.test.ts covers the quoting itself). And no network call is
// made while a transaction is open (db/README.md, "Units of work").
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { afterAll, describe, expect, it } from "vitest";
import { openPool, useBridge } from "../../db/neon";
import { sql } from "drizzle-orm";
import { statement } from "../../db/pipeline";
import { inTransaction, takeRefusedNetworkCalls } from "../../db/transaction";
import { callCodehost } from "../../worker/codehost/codehost-api";
import { configFor } from "../../worker/config/for-env";

const database = inject("database");
useBridge(database.bridge);
const pool = openPool(database.app, "svc_app", 1);
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
      const { rows } = await tx.execute<{ value: string }>(sql`SELECT current_setting('app.lookup_person_email') AS value`);
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
      async (tx) => (await tx.execute<{ org: string }>(sql`SELECT current_setting('app.org_id', true) AS org`)).rows[0]!.org,
    );
    expect(after).toBe("");
  });

  it("runs its first statement in the round trip that opens it, seeing the settings, and hands its rows to the work", async () => {
    const orgId = crypto.randomUUID();
    const first = statement`SELECT current_setting('app.org_id') AS org, current_setting('app.lookup_token_hash') AS hash, 1 + 1 AS two`;
    const [rows, inside] = await inTransaction(pool.connect, { orgId, lookups: { token_hash: "abc" }, first }, async (tx, found) => [
      found,
      (await tx.execute<{ open: boolean }>(sql`SELECT now() = statement_timestamp() AS open`)).rows[0]!.open,
    ]);
    expect(rows).toEqual([{ org: orgId, hash: "abc", two: 2 }]);
    expect(inside).toBe(false); // the work ran in the transaction the first statement opened
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
