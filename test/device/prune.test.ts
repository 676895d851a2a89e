// The sweep deletes device sign-ins a day past their 15 minutes, through the real scheduled handler;
// one that expired within the day stays, so a CLI polling just after is still told expired_token.
import { beforeAll, describe, expect, it } from "vitest";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { asRole } from "../support/sql";
import { sweepOnce } from "../support/sweep";

let own: OwnDatabase;
beforeAll(async () => {
  own = await ownDatabase();
});

describe("the sweep", () => {
  it("deletes device sign-ins a day past their expiry and keeps those expired since, and live ones", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    await asRole(
      "superuser",
      (client) =>
        client.query(
          `INSERT INTO device_authorizations (device_code_hash, user_code, scopes, interval_seconds, created_at, expires_at) VALUES
             ($1 || '-old', $1 || '-OLD', '{}', 5, now() - interval '2 days', now() - interval '2 days' + interval '15 minutes'),
             ($1 || '-recent', $1 || '-RECENT', '{}', 5, now() - interval '1 hour', now() - interval '45 minutes'),
             ($1 || '-live', $1 || '-LIVE', '{}', 5, now(), now() + interval '15 minutes')`,
          [tag],
        ),
      own.database,
    );
    const logs = await sweepOnce(own);
    expect(logs.event("sweep.device_sign_ins")).toMatchObject({ deleted: 1 });
    const left = await asRole(
      "superuser",
      async (client) =>
        (
          await client.query<{ device_code_hash: string }>(
            "SELECT device_code_hash FROM device_authorizations WHERE device_code_hash LIKE $1 || '%' ORDER BY created_at",
            [tag],
          )
        ).rows,
      own.database,
    );
    expect(left).toEqual([{ device_code_hash: `${tag}-recent` }, { device_code_hash: `${tag}-live` }]);
  });
});
