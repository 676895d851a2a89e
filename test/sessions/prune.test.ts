// The sweep deletes a session a day after its 30 days (no browser can present it then), through the
// real scheduled handler, with its client address, user agent and a deletion's notice; a younger one,
// live or ended, stays. The maintenance role sees, and so deletes, nothing younger whatever it asks.
import { beforeAll, describe, expect, it } from "vitest";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { sweepOnce } from "../support/sweep";
import { asRole } from "../support/sql";

let own: OwnDatabase;
beforeAll(async () => {
  own = await ownDatabase();
});

/** A person with sessions begun `ages` days ago, named by their age; answers the person's id. */
const withSessions = (login: string, ages: number[]) =>
  asRole(
    "superuser",
    async (client) => {
      const person = await client.query<{ id: string }>("INSERT INTO people (login) VALUES ($1) RETURNING id", [login]);
      for (const age of ages) {
        await client.query(
          `INSERT INTO sessions (person_id, token_hash, client_address, user_agent, created_at, last_seen_at, signed_out_at, ended_by_deletion)
           VALUES ($1, $2, '198.51.100.7', 'test', now() - make_interval(days => $3), now() - make_interval(days => $3), now(), '{"organization":{"name":"Gone","slug":"gone"}}')`,
          [person.rows[0]!.id, `${login}-${age}`, age],
        );
      }
      return person.rows[0]!.id;
    },
    own.database,
  );

const sessionsOf = (personId: string) =>
  asRole(
    "superuser",
    async (client) => (await client.query<{ token_hash: string }>("SELECT token_hash FROM sessions WHERE person_id = $1 ORDER BY created_at", [personId])).rows,
    own.database,
  );

describe("the sweep", () => {
  it("deletes sessions begun more than 31 days ago and keeps younger ones", async () => {
    const personId = await withSessions("pruned", [45, 32, 30, 1]);
    const logs = await sweepOnce(own);
    expect(logs.event("sweep.sessions")).toMatchObject({ deleted: 2 });
    expect(await sessionsOf(personId)).toEqual([{ token_hash: "pruned-30" }, { token_hash: "pruned-1" }]);
  });

  it("runs as a role that sees no younger session, whatever it asks for", async () => {
    const personId = await withSessions("guarded", [40, 29]);
    const deleted = await asRole("maintenance", async (client) => (await client.query("DELETE FROM sessions")).rowCount, own.database);
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(await sessionsOf(personId)).toEqual([{ token_hash: "guarded-29" }]);
  });
});
