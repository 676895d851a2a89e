// The sweep deletes sign-in links past their 15 minutes, used or not, with the address each named,
// through the real scheduled handler; a link still within its minutes stays, and still signs in.
import { beforeAll, describe, expect, it } from "vitest";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { asRole } from "../support/sql";
import { sweepOnce } from "../support/sweep";

let own: OwnDatabase;
beforeAll(async () => {
  own = await ownDatabase();
});

describe("the sweep", () => {
  it("deletes expired sign-in links, used or not, and keeps live ones", async () => {
    const address = `${crypto.randomUUID().slice(0, 8)}@example.test`;
    await asRole(
      "superuser",
      (client) =>
        client.query(
          `INSERT INTO magic_links (email, token_hash, created_at, expires_at, used_at) VALUES
             ($1, $1 || '-expired', now() - interval '1 hour', now() - interval '45 minutes', NULL),
             ($1, $1 || '-used', now() - interval '20 minutes', now() - interval '5 minutes', now() - interval '19 minutes'),
             ($1, $1 || '-live', now(), now() + interval '15 minutes', NULL)`,
          [address],
        ),
      own.database,
    );
    const logs = await sweepOnce(own);
    expect(logs.event("sweep.magic_links")).toMatchObject({ deleted: 2 });
    const left = await asRole(
      "superuser",
      async (client) => (await client.query<{ token_hash: string }>("SELECT token_hash FROM magic_links WHERE email = $1", [address])).rows,
      own.database,
    );
    expect(left).toEqual([{ token_hash: `${address}-live` }]);
  });
});
