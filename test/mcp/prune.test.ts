// The sweep deletes the refresh tokens the previous release wrote once they expired (spent or not),
// through the real scheduled handler, and keeps every token still within its lifetime, which that
// release may still read, until a later release drops the table.
import { beforeAll, describe, expect, it } from "vitest";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { sweepOnce } from "../support/sweep";
import { seedOrganization } from "../support/seed";
import { asRole } from "../support/sql";

let own: OwnDatabase;
beforeAll(async () => {
  own = await ownDatabase();
});

describe("the sweep", () => {
  it("deletes expired refresh tokens, in batches, and keeps those within their lifetime, spent or live", async () => {
    const orgId = (await seedOrganization("refresh-prune", own.database)).id;
    await asRole(
      "superuser",
      async (client) => {
        const person = await client.query<{ id: string }>("INSERT INTO people (login) VALUES ('pruned') RETURNING id");
        await client.query("INSERT INTO protocol_clients (client_id, client_name, redirect_uris) VALUES ('prune-client', 'Prune', '{http://127.0.0.1/cb}')");
        const grant = await client.query<{ id: string }>(
          `INSERT INTO protocol_grants (org_id, person_id, client_id, client_name, redirect_uri, code_challenge, code_hash, code_expires_at)
           VALUES ($1, $2, 'prune-client', 'Prune', 'http://127.0.0.1/cb', 'challenge', 'code-hash', now()) RETURNING id`,
          [orgId, person.rows[0]!.id],
        );
        // 1,005 expired (more than one batch; every tenth never spent), one spent and one live within their lifetime.
        await client.query(
          `INSERT INTO protocol_refresh_tokens (token_hash, org_id, grant_id, expires_at, spent_at)
           SELECT 'expired-' || n, $1, $2, now() - interval '1 minute', CASE WHEN n % 10 = 0 THEN NULL ELSE now() - interval '1 hour' END
           FROM generate_series(1, 1005) n`,
          [orgId, grant.rows[0]!.id],
        );
        await client.query(
          `INSERT INTO protocol_refresh_tokens (token_hash, org_id, grant_id, expires_at, spent_at)
           VALUES ('spent', $1, $2, now() + interval '29 days', now()), ('live', $1, $2, now() + interval '30 days', NULL)`,
          [orgId, grant.rows[0]!.id],
        );
      },
      own.database,
    );
    const logs = await sweepOnce(own);
    expect(logs.event("sweep.refresh_tokens")).toMatchObject({ deleted: 1005 });
    const left = await asRole(
      "superuser",
      async (client) =>
        (await client.query<{ token_hash: string }>("SELECT token_hash FROM protocol_refresh_tokens WHERE org_id = $1 ORDER BY token_hash", [orgId])).rows,
      own.database,
    );
    expect(left).toEqual([{ token_hash: "live" }, { token_hash: "spent" }]);
  });
});
