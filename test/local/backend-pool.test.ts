// The local bridge hands a finished session's PostgreSQL backend to the next one (local/backend-pool.ts),
// as Neon's pooled endpoint does: nothing of one session may reach the next, and a backend goes only
// to a session that presents the password PostgreSQL accepted for that role.
import { describe, expect, inject, it } from "vitest";
import { RESET_SESSION } from "../../local/backend-pool";
import { ownDatabase } from "../support/own-database";
import { asRole } from "../support/sql";

const session = <T>(work: Parameters<typeof asRole<T>>[1]) => asRole("app", work);

describe("the local bridge's backend pool", () => {
  it("gives the next session none of the last one's settings, prepared statements, open transaction or advisory locks", async () => {
    const lock = Math.floor(Math.random() * 1e9);
    const pids: number[] = [];
    await session(async (client) => {
      pids.push((await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid);
      await client.query("SELECT set_config('app.org_id', $1, false)", [crypto.randomUUID()]);
      await client.query("SELECT pg_advisory_lock($1)", [lock]);
      await client.query("PREPARE left_behind AS SELECT 1");
      await client.query("BEGIN");
      await client.query("SELECT 1 / 0").catch(() => {});
    });
    // Whichever backend the next sessions get (another file may take the one just handed back, and a
    // backend still being reset holds its locks until it is), none of the last session's comes with it.
    for (let i = 0; i < 3; i++) {
      const seen = await session(
        async (client) =>
          // A statement that runs at all is not inside the failed transaction the last session left.
          (
            await client.query<{ pid: number; org: string | null; held: number; prepared: number }>(
              `SELECT pg_backend_pid() AS pid, current_setting('app.org_id', true) AS org,
                      (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS held,
                      (SELECT count(*)::int FROM pg_prepared_statements WHERE name = 'left_behind') AS prepared`,
            )
          ).rows[0]!,
      );
      expect(seen.org ?? "").toBe("");
      expect(seen.held).toBe(0); // the advisory lock was released with the last session
      expect(seen.prepared).toBe(0);
      pids.push(seen.pid);
    }
    // Backends are reused: four sessions did not need four backends (tests running beside this one may take some).
    expect(new Set(pids).size).toBeLessThanOrEqual(4);
  });

  it("answers clients that pipeline their start (startup, password and first statement in one write), on fresh and pooled backends", async () => {
    // More sessions at once than the pool keeps per role: some get fresh backends, the rest pooled ones.
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => session(async (client) => (await client.query<{ n: number }>("SELECT $1::int AS n", [i])).rows[0]!.n)),
    );
    expect(answers).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it("never hands out a pooled backend the server terminated: the next sessions all answer, none on it", async () => {
    // In a database of its own: a backend of the shared one may be handed to another file's session
    // in the meantime, and terminating it would end that session instead.
    const { database } = await ownDatabase();
    const mine = <T>(work: Parameters<typeof asRole<T>>[1]) => asRole("app", work, database);
    const pid = await mine(async (client) => (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid);
    // Once reset it waits in the pool (idle after its reset: a busy machine may take more than a
    // moment to reset it); then the server ends it, as a restart or a pooler would.
    const reset = async () =>
      asRole(
        "superuser",
        async (client) =>
          (await client.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'idle' AND query = $2", [pid, RESET_SESSION])).rowCount === 1,
      );
    for (let tries = 0; tries < 100; tries++) {
      if (await reset()) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await asRole("superuser", (client) => client.query("SELECT pg_terminate_backend($1)", [pid]));
    const seen = await Promise.all(
      Array.from({ length: 8 }, () => mine(async (client) => (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid)),
    );
    expect(seen).not.toContain(pid);
  }, 60_000);

  it("refuses a wrong password even for a role whose backends wait in the pool", async () => {
    await session((client) => client.query("SELECT 1"));
    const database = inject("database");
    const wrong = new URL(database.app);
    wrong.password = "not-the-password";
    await expect(asRole("app", (client) => client.query("SELECT 1"), { ...database, app: wrong.toString() })).rejects.toThrow(/password authentication failed/);
  });
});
