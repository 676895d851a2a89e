// The Delete step's batches while the database drops their connections (issue 43), in a database of
// this file's own, so the storm ends no other file's connections: each batch is one statement with the
// deletion's progress, so a batch that died took nothing with it, the invocation goes on with another
// connection (the next invocation, when several were lost in a row) from the rows still there, and in
// the end every row of the organization is gone, each counted once, and the other organization's are
// all there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diagnose } from "../../worker/http/diagnosis";
import { removeInBatches } from "../../worker/deletion/batches";
import { openPool, type RequestPool } from "../../db/neon";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { asRole } from "../support/sql";

let own: OwnDatabase;
let pool: RequestPool;

beforeAll(async () => {
  own = await ownDatabase();
  pool = openPool(own.database.app, "svc_app", 2);
}, 60_000);

afterAll(async () => {
  await pool?.end();
});

const ROWS = 3_000;

/** An organization with ROWS tokens and ROWS environments. */
async function seeded(slug: string): Promise<string> {
  return asRole(
    "superuser",
    async (client) => {
      const orgId = (await client.query<{ id: string }>("INSERT INTO organizations (id, slug, name) VALUES (gen_random_uuid(), $1, $1) RETURNING id", [slug]))
        .rows[0]!.id;
      await client.query(
        `INSERT INTO tokens (org_id, kind, name, token_hash, display_prefix)
         SELECT $1, 'engine', 'storm ' || n, $2 || '-' || n, 'svc_eng_x' FROM generate_series(1, $3) AS n`,
        [orgId, crypto.randomUUID(), ROWS],
      );
      await client.query(
        `INSERT INTO environments (org_id, env_id, repository, state, last_event_at)
         SELECT $1, 'env-' || n, 'storm/shop', 'ready', now() FROM generate_series(1, $2) AS n`,
        [orgId, ROWS],
      );
      return orgId;
    },
    own.database,
  );
}

const left = (orgId: string) =>
  asRole(
    "superuser",
    async (client) =>
      (
        await client.query<{ tokens: number; environments: number; removed: number | null }>(
          `SELECT (SELECT count(*)::int FROM tokens WHERE org_id = $1) AS tokens, (SELECT count(*)::int FROM environments WHERE org_id = $1) AS environments,
                  (SELECT rows_removed::int FROM deletions WHERE org_id = $1) AS removed`,
          [orgId],
        )
      ).rows[0]!,
    own.database,
  );

describe("the Delete step's batches while connections drop", () => {
  it("remove every row of the organization exactly once across the failed invocations, and none of another's", async () => {
    const doomed = await seeded(`storm-${crypto.randomUUID().slice(0, 8)}`);
    const bystander = await seeded(`calm-${crypto.randomUUID().slice(0, 8)}`);
    // At its Delete step and due, as the earlier steps leave it.
    await asRole(
      "superuser",
      (client) => client.query("INSERT INTO deletions (org_id, step, export_token_hash) VALUES ($1, 'delete', $2)", [doomed, crypto.randomUUID()]),
      own.database,
    );
    const name = new URL(own.database.app).pathname.slice(1);
    let stormy = true;
    let dropped = 0;
    const storm = (async () => {
      while (stormy) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        dropped += await asRole("superuser", async (client) =>
          Number(
            (
              await client.query<{ n: string }>(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                [name],
              )
            ).rows[0]!.n,
          ),
        );
      }
    })();
    const failures: string[] = [];
    try {
      // Invocations as the sweeps make them, each until its rows are gone or a batch fails.
      for (let invocation = 0; invocation < 200; invocation++) {
        try {
          await removeInBatches(pool.connect, own.database.maintenance, doomed, { rows: 200, stopAt: Date.now() + 60_000 });
          break;
        } catch (error) {
          failures.push(diagnose(error).kind);
        }
      }
    } finally {
      stormy = false;
      await storm;
    }
    expect(dropped).toBeGreaterThan(0);
    // An invocation goes on through a lost connection; one gives up only when several are lost in a row.
    for (const failure of failures) expect(failure).toBe("database_unreachable");
    // Every row gone, each counted once in the progress, however many invocations it took.
    expect(await left(doomed)).toEqual({ tokens: 0, environments: 0, removed: 2 * ROWS });
    expect(await left(bystander)).toEqual({ tokens: ROWS, environments: ROWS, removed: null });
  }, 120_000);
});
