// The sweep deletes engine tokens of identity exchanges once their 15 minutes are over, through the
// real scheduled handler, and leaves live ones and tokens people made (issue 36).
import { beforeAll, describe, expect, it } from "vitest";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { sweepOnce } from "../support/sweep";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";

let own: OwnDatabase;
beforeAll(async () => {
  own = await ownDatabase();
});

describe("the sweep", () => {
  it("deletes expired identity-exchange tokens, in batches, and keeps live and hand-made ones", async () => {
    const orgId = (await seedOrganization("prune", own.database)).id;
    const made = await seedToken(orgId, "engine", [], {}, own.database);
    await asRole(
      "superuser",
      async (client) => {
        const claim = await client.query<{ id: string }>(
          "INSERT INTO repository_claims (org_id, repository, source) VALUES ($1, 'acme/prune', 'cli') RETURNING id",
          [orgId],
        );
        // 1,005 expired (more than one batch), one live.
        await client.query(
          `INSERT INTO tokens (org_id, kind, name, token_hash, display_prefix, binding_id, expires_at)
           SELECT $1, 'engine', 'expired ' || n, 'hash-expired-' || n || '-' || $2, 'svc_eng_x', $2::uuid, now() - interval '1 minute'
           FROM generate_series(1, 1005) n`,
          [orgId, claim.rows[0]!.id],
        );
        await client.query(
          `INSERT INTO tokens (org_id, kind, name, token_hash, display_prefix, binding_id, expires_at)
           VALUES ($1, 'engine', 'live', 'hash-live-' || $2, 'svc_eng_x', $2::uuid, now() + interval '14 minutes')`,
          [orgId, claim.rows[0]!.id],
        );
      },
      own.database,
    );
    await sweepOnce(own);
    const left = await asRole(
      "superuser",
      async (client) => (await client.query<{ id: string; name: string }>("SELECT id, name FROM tokens WHERE org_id = $1 ORDER BY name", [orgId])).rows,
      own.database,
    );
    expect(left).toEqual([
      { id: expect.any(String), name: "live" },
      { id: made.id, name: "test" },
    ]);
  });
});
