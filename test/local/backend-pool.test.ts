// The local bridge pools PostgreSQL backends by transaction (local/backend-pool.ts), as Neon's pooled
// endpoint does: a client's next transaction runs on another backend whenever one is idle, and nothing
// a transaction leaves in its session reaches the next one, on any backend. Against the real server,
// in a database of this file's own: its pools are this file's alone, so which backends are idle is
// known (the shared database's are other files' too). The bridge's timing against a server of the
// test's own is test/local/backend-pool.node.ts.
import type { Client, ClientConfig } from "@neondatabase/serverless";
import { beforeAll, describe, expect, it } from "vitest";
import { RESET_SESSION, SERVER_CONNECTIONS } from "../../local/backend-pool";
import { loadDriver, useBridge } from "../../db/neon";
import type { TestDatabase } from "../setup/bindings";
import { ownDatabase } from "../support/own-database";
import { asRole, type RoleName } from "../support/sql";

let own: TestDatabase;
beforeAll(async () => {
  own = (await ownDatabase()).database;
}, 60_000);

const app = <T>(work: (client: Client) => Promise<T>) => asRole("app", work, own);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pidOf = async (client: Client) => (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
const lockKey = () => Math.floor(Math.random() * 1e9);

/** A connected client of this file's database, ended by the caller. */
async function connected(role: RoleName, config: ClientConfig = {}): Promise<Client> {
  useBridge(own.bridge);
  const { Client } = await loadDriver();
  const client = new Client({ connectionString: own[role], ...config });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** Waits until every backend of `pids` is back in the pool: reset, and idle since. */
async function untilPooled(pids: number[]): Promise<void> {
  // By the clock, not by tries: each look opens a connection of its own, which a loaded machine makes
  // slow, and the backend's way back (rollback, reset) waits behind the same load.
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    const { rowCount } = await asRole("superuser", (client) =>
      client.query("SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1) AND state = 'idle' AND query = $2", [pids, RESET_SESSION]),
    );
    if (rowCount === pids.length) return;
    await sleep(25);
  }
  const where = await asRole(
    "superuser",
    async (client) => (await client.query("SELECT pid, state, query FROM pg_stat_activity WHERE pid = ANY($1)", [pids])).rows,
  );
  throw new Error(`backends ${pids.join(", ")} did not come back to the pool: ${JSON.stringify(where)}`);
}

/** Makes sure at least `count` of the application role's backends are idle in the pool, and returns theirs. */
async function idleBackends(count: number): Promise<number[]> {
  const clients = await Promise.all(Array.from({ length: count }, () => connected("app")));
  try {
    // Each in a transaction at the same time: each on a backend of its own.
    const pids = await Promise.all(
      clients.map(async (client) => {
        await client.query("BEGIN");
        return pidOf(client);
      }),
    );
    await Promise.all(clients.map((client) => client.query("COMMIT")));
    await untilPooled(pids);
    return pids;
  } finally {
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
  }
}

describe("the local bridge's pool, by transaction", () => {
  it("runs a client's consecutive transactions on the backends in the order they became idle, not on the one it just had", async () => {
    await idleBackends(3);
    const pids = await app(async (client) => {
      const seen: number[] = [];
      for (let i = 0; i < 4; i++) {
        seen.push(await pidOf(client));
        // Back in the pool before the next transaction: handed out last-in-first-out, it would come straight back.
        await untilPooled([seen.at(-1)!]);
      }
      return seen;
    });
    for (let i = 1; i < pids.length; i++) expect(pids[i], `transaction ${i + 1}`).not.toBe(pids[i - 1]);
    expect(new Set(pids).size).toBeGreaterThanOrEqual(3);
  });

  it("keeps an open transaction's backend, and what it set, across its statements until it ends", async () => {
    await idleBackends(3);
    const seen = await app(async (client) => {
      await client.query("BEGIN");
      const inside = [await pidOf(client)];
      await client.query("SELECT set_config('app.kept', $1, true)", ["in the transaction"]);
      for (let i = 0; i < 3; i++) inside.push(await pidOf(client));
      const setting = (await client.query<{ value: string }>("SELECT current_setting('app.kept', true) AS value")).rows[0]!.value;
      await client.query("COMMIT");
      return { inside, setting };
    });
    expect(new Set(seen.inside).size).toBe(1);
    expect(seen.setting).toBe("in the transaction");
  });

  // Each made by the application role, or by the superuser where that role may not: SET ROLE to a
  // built-in role, and a temporary table (the migrations take TEMPORARY from PUBLIC).
  const key = lockKey();
  it.each([
    { state: "a SET", role: "app", make: "SET app.kept = 'yes'", still: "coalesce(current_setting('app.kept', true), '') = 'yes'" },
    {
      state: "set_config(..., false)",
      role: "app",
      make: "SELECT set_config('app.kept', 'yes', false)",
      still: "coalesce(current_setting('app.kept', true), '') = 'yes'",
    },
    { state: "SET ROLE", role: "superuser", make: "SET ROLE pg_monitor", still: "current_user <> session_user" },
    {
      state: "a session advisory lock",
      role: "app",
      make: `SELECT pg_advisory_lock(${key})`,
      still: `EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = ${key})`,
    },
    { state: "a temporary table", role: "superuser", make: "CREATE TEMP TABLE kept (n int)", still: "to_regclass('pg_temp.kept') IS NOT NULL" },
    {
      state: "a prepared statement (SQL PREPARE)",
      role: "app",
      make: "PREPARE kept AS SELECT 1",
      still: "EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name = 'kept')",
    },
    { state: "LISTEN", role: "app", make: "LISTEN kept", still: "'kept' = ANY (ARRAY(SELECT pg_listening_channels()))" },
  ] as const)("lets nothing of $state made outside a transaction reach the client's next ones, not even on the same backend", async ({ role, make, still }) => {
    await idleBackends(2);
    const { first, seen } = await asRole(
      role,
      async (client) => {
        // Made and its backend read in one transaction (a simple query's statements are one).
        const made = (await client.query(`${make}; SELECT pg_backend_pid() AS pid`)) as unknown as { rows: { pid: number }[] }[];
        const first = made.at(-1)!.rows[0]!.pid;
        const seen: { pid: number; still: boolean }[] = [];
        // Round the pool until a transaction lands on the backend the state was made on.
        for (let pid = first, i = 0; i < 3 * SERVER_CONNECTIONS && (i === 0 || pid !== first); i++) {
          await untilPooled([pid]);
          const row = (await client.query<{ pid: number; still: boolean }>(`SELECT pg_backend_pid() AS pid, ${still} AS still`)).rows[0]!;
          seen.push(row);
          pid = row.pid;
        }
        return { first, seen };
      },
      own,
    );
    expect(seen.at(-1)!.pid, "a later transaction came back to the backend the state was made on").toBe(first);
    expect(seen.filter((row) => row.still)).toEqual([]);
  });

  it("answers clients that pipeline their start (startup, password and first statement in one write), on fresh and pooled backends", async () => {
    // A role with no pool yet: each client's password is checked on a fresh backend; then the same
    // again, answered by the bridge and run on pooled backends (more clients than backends: some wait).
    for (const round of ["fresh", "pooled"]) {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          asRole("operator", async (client) => (await client.query<{ n: number }>("SELECT $1::int AS n", [i])).rows[0]!.n, own),
        ),
      );
      expect(answers, round).toEqual(Array.from({ length: 12 }, (_, i) => i));
    }
  });

  it.each([
    { parameter: "statement_timeout", config: { statement_timeout: 1000 } },
    { parameter: "options", config: { options: "-c search_path=public" } },
  ])("refuses a startup parameter PgBouncer does not know ($parameter), as it does", async ({ parameter, config }) => {
    const refused = async () => {
      const client = await connected("app", config);
      try {
        await client.query("SELECT 1");
      } finally {
        await client.end().catch(() => {});
      }
    };
    await expect(refused()).rejects.toMatchObject({ code: "08P01", severity: "FATAL", message: `unsupported startup parameter: ${parameter}` });
  });

  it("makes a client wait while all of its pool's backends are busy, and gives it the first one that comes free", async () => {
    const holders = await Promise.all(Array.from({ length: SERVER_CONNECTIONS }, () => connected("app")));
    const waiting = await connected("app");
    try {
      const busy = await Promise.all(
        holders.map(async (client) => {
          await client.query("BEGIN");
          return pidOf(client);
        }),
      );
      let answered = false;
      const got = pidOf(waiting).then((pid) => {
        answered = true;
        return pid;
      });
      await sleep(500);
      expect(answered, "answered while every backend was in a transaction").toBe(false);
      await holders[3]!.query("COMMIT");
      expect(await got).toBe(busy[3]);
    } finally {
      await Promise.all([...holders, waiting].map((client) => client.end().catch(() => {})));
    }
  });

  it("rolls back, unlocks and takes back the backend of a client that leaves in the middle of a transaction", async () => {
    const [xact, session] = [lockKey(), lockKey()];
    // The database's owner, which may create a table in it: the table shows whether the transaction was committed.
    const client = await connected("migration");
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1), pg_advisory_lock($2)", [xact, session]);
    await client.query("CREATE TABLE left_open (n int)");
    const pid = await pidOf(client);
    await client.end();
    await untilPooled([pid]);
    const left = await asRole("superuser", async (superuser) => ({
      locks: (await superuser.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = ANY($1)", [[xact, session]])).rowCount,
      open: (
        await superuser.query("SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND state LIKE 'idle in transaction%'", [new URL(own.app).pathname.slice(1)])
      ).rowCount,
    }));
    expect(left).toEqual({ locks: 0, open: 0 });
    expect(await app(async (next) => (await next.query("SELECT to_regclass('left_open') AS found")).rows[0]!.found)).toBeNull();
  });

  it("ends the session of a client whose backend dies in the middle of its transaction", async () => {
    const client = await connected("app");
    let ended = false;
    client.on("end", () => (ended = true));
    try {
      await client.query("BEGIN");
      const pid = await pidOf(client);
      await asRole("superuser", (superuser) => superuser.query("SELECT pg_terminate_backend($1)", [pid]));
      await expect(client.query("SELECT 1")).rejects.toThrow();
      for (let tries = 0; tries < 250 && !ended; tries++) await sleep(20);
      expect(ended, "the client's session closed").toBe(true);
    } finally {
      // The driver's end waits for an end that already came.
      if (!ended) await client.end().catch(() => {});
    }
    expect(await app((next) => pidOf(next))).toBeGreaterThan(0);
  });

  it("carries a client's named prepared statement to whichever backend its next transaction runs on, as Neon's PgBouncer does", async () => {
    await idleBackends(3);
    const named = (client: Client, n: number) =>
      client
        .query<{ pid: number; n: number }>({ name: "carried", text: "SELECT pg_backend_pid() AS pid, $1::int AS n", values: [n] })
        .then((result) => result.rows[0]!);
    const { apart, together } = await app(async (client) => {
      const apart = [];
      for (let n = 0; n < 3; n++) {
        apart.push(await named(client, n));
        await untilPooled([apart.at(-1)!.pid]);
      }
      // Twice in one transaction: parsed once on its backend.
      await client.query("BEGIN");
      const together = [await named(client, 3), await named(client, 4)];
      await client.query("COMMIT");
      return { apart, together };
    });
    expect(apart.map((row) => row.n)).toEqual([0, 1, 2]);
    expect(new Set(apart.map((row) => row.pid)).size, "each on another backend").toBe(3);
    expect(together.map((row) => row.n)).toEqual([3, 4]);
  });

  it("never hands out a pooled backend the server terminated: the next clients all answer, none on it", async () => {
    const pid = await app(pidOf);
    // Once reset it waits in the pool (a busy machine may take more than a moment to reset it); then
    // the server ends it, as a restart or a pooler would.
    await untilPooled([pid]);
    await asRole("superuser", (client) => client.query("SELECT pg_terminate_backend($1)", [pid]));
    const seen = await Promise.all(Array.from({ length: 8 }, () => app(pidOf)));
    expect(seen).not.toContain(pid);
  }, 60_000);

  it("refuses a wrong password even for a role whose backends wait in the pool", async () => {
    await app((client) => client.query("SELECT 1"));
    const wrong = new URL(own.app);
    wrong.password = "not-the-password";
    await expect(asRole("app", (client) => client.query("SELECT 1"), { ...own, app: wrong.toString() })).rejects.toThrow(/password authentication failed/);
  });
});
