// The own-failure store: each unexpected failure (500) grouped by fingerprint with counts, first and
// last seen and a redacted sample; at most 500 groups and one write per group per 10 seconds; groups
// past SVC_FAILURE_RETENTION_DAYS deleted by the maintenance pass; nothing recorded when it is off.
// Each test works in a database of its own, since the store spans the whole deployment.
import { createExecutionContext, createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { configFor } from "../../worker/config/for-env";
import type { Config } from "../../worker/config/types";
import { FailureThrottle, storeFailure, type Failure } from "../../worker/http/failure-store";
import { SWEEP_CRON } from "../../worker/scheduled";
import { callWith, UNREACHABLE_DATABASE } from "../support/http";
import { captureLogs, quietly } from "../support/logs";
import { adminQuery, dataOf, operatorSignIn, seedOperator } from "../support/operators";
import { ownDatabase, type OwnDatabase } from "../support/own-database";
import { seedOrganization, seedToken } from "../support/seed";
import { appPool, asRole } from "../support/sql";
import { seedPerson } from "../support/sessions";
import { beginSession } from "../../worker/sessions/store";
import { csrfTokenFor } from "../../worker/sessions/csrf";

interface GroupRow {
  fingerprint: string;
  code: string;
  route: string;
  error_type: string;
  sample: Record<string, unknown>;
  occurrences: string;
  first_seen_at: Date;
  last_seen_at: Date;
  last_written_at: Date;
}

let own: OwnDatabase;
beforeAll(async () => {
  own = await ownDatabase();
});

const groups = () =>
  asRole("superuser", async (client) => (await client.query<GroupRow>("SELECT * FROM failure_groups ORDER BY first_seen_at")).rows, own.database);

/**
 * A real unexpected failure: POST /v1/tokens while a check constraint (added by the superuser) refuses
 * tokens named with `marker`. The request also carries a session cookie, which must not be stored.
 */
async function failingTokenRequest(overrides: Record<string, unknown> = {}) {
  const marker = `marker-${crypto.randomUUID().slice(0, 8)}`;
  const constraint = `test_refuses_${marker.replace(/-/g, "_")}`;
  const orgId = (await seedOrganization("failures", own.database)).id;
  const cli = (await seedToken(orgId, "cli", ["tokens.manage"], {}, own.database)).token;
  await asRole(
    "superuser",
    (client) => client.query(`ALTER TABLE tokens ADD CONSTRAINT ${constraint} CHECK (position('${marker}' in name) = 0) NOT VALID`),
    own.database,
  );
  // Each send is a 500 on purpose: what it logs is not printed.
  const send = () =>
    quietly(() =>
      callWith({ ...own.bindings, ...overrides }, "/v1/tokens", {
        method: "POST",
        token: cli,
        json: { name: `runner ${marker}` },
        headers: { cookie: `svc_session=cookie-${marker}` },
      }),
    );
  const drop = () => asRole("superuser", (client) => client.query(`ALTER TABLE tokens DROP CONSTRAINT ${constraint}`), own.database);
  return { marker, constraint, cli, send, drop };
}

describe("recording an unexpected failure", () => {
  it("stores the group with its count, first and last seen and a sample holding nothing of the request", async () => {
    const failing = await failingTokenRequest();
    try {
      const response = await failing.send();
      expect(response.status).toBe(500);
      const { requestId } = (await response.json()) as { requestId: string };
      const [group] = (await groups()).filter((row) => row.error_type.includes(failing.constraint));
      expect(group).toMatchObject({ code: "internal_error", route: "/v1/tokens", occurrences: "1" });
      expect(group!.first_seen_at).toEqual(group!.last_seen_at);
      expect(group!.sample).toMatchObject({
        requestId,
        build: { version: "test-version", commit: "test-commit" },
        method: "POST",
        route: "/v1/tokens",
        code: "internal_error",
        sqlState: "23514",
        constraint: failing.constraint,
      });
      expect((group!.sample.frames as string[]).some((frame) => frame.includes("worker/tokens/issue.ts"))).toBe(true);
      const stored = JSON.stringify(group);
      for (const leak of [failing.marker, failing.cli, "cookie-", "svc_session", "runner"]) expect(stored).not.toContain(leak);

      // A second occurrence inside 10 seconds is held back: still one write, the same row as before.
      const again = await failing.send();
      expect(again.status).toBe(500);
      await again.body?.cancel();
      const [after] = (await groups()).filter((row) => row.fingerprint === group!.fingerprint);
      expect(after).toMatchObject({ occurrences: "1", last_written_at: group!.last_written_at });

      // Operators see it in the portal.
      const operator = await operatorSignIn(await seedOperator(undefined, undefined, own.database), undefined, own.bindings);
      const listed = await dataOf<{ groups: Array<{ fingerprint: string; occurrences: number; route: string }> }>(
        adminQuery(operator.cookie, "admin.failures", undefined, own.bindings),
      );
      expect(listed.groups.find((row) => row.fingerprint === group!.fingerprint)).toMatchObject({ occurrences: 1, route: "/v1/tokens" });
    } finally {
      await failing.drop();
    }
  });

  it("records a failed procedure too, under /rpc/<procedure>", async () => {
    const failing = await failingTokenRequest();
    try {
      const orgId = (await seedOrganization("rpc-failures", own.database)).id;
      const personId = await seedPerson(`rpc-failure-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }], own.database);
      const pool = appPool(own.database);
      const session = await beginSession(pool.connect, { id: personId, label: "test" }, { address: null, userAgent: "test" }, "test").finally(() => pool.end());
      const csrf = await csrfTokenFor(session);
      const response = await quietly(() =>
        callWith(own.bindings, "/rpc/tokens.create", {
          method: "POST",
          json: { orgId, name: `runner ${failing.marker}` },
          headers: { cookie: `svc_session=${session}`, "x-svc-csrf": csrf },
        }),
      );
      expect(response.status).toBe(500);
      await response.body?.cancel();
      const [group] = (await groups()).filter((row) => row.error_type.includes(failing.constraint));
      expect(group).toMatchObject({
        code: "internal_error",
        route: "/rpc/tokens.create",
        occurrences: "1",
        sample: { method: "RPC", route: "/rpc/tokens.create" },
      });
      expect(JSON.stringify(group)).not.toContain(failing.marker);
      expect(JSON.stringify(group)).not.toContain(session);
    } finally {
      await failing.drop();
    }
  });

  it("records nothing with SVC_FAILURE_STORE=off, and the 500 is the same", async () => {
    for (const off of ["off", "0", "false"]) {
      const failing = await failingTokenRequest({ SVC_FAILURE_STORE: off });
      try {
        const response = await failing.send();
        expect(response.status).toBe(500);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("internal_error");
        expect((await groups()).filter((row) => row.error_type.includes(failing.constraint))).toEqual([]);
      } finally {
        await failing.drop();
      }
    }
  });

  it("never turns the 500 into something else when the store cannot be written", async () => {
    const response = await quietly(() =>
      callWith({ ...own.bindings, ...UNREACHABLE_DATABASE }, "/v1/events", {
        method: "POST",
        token: "svc_eng_whatever",
        json: { events: [] },
      }),
    );
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("database_unavailable");
  });
});

const aFailure = (constraint: string): Failure => ({
  requestId: crypto.randomUUID(),
  code: "internal_error",
  method: "POST",
  route: "/v1/tokens",
  diagnosis: { kind: "internal", errorClass: ["DatabaseError"], sqlState: "23514", constraint, frames: ["at issueToken (worker/tokens/issue.ts:10:5)"] },
});

describe("the store's bounds", () => {
  let config: Config;
  beforeAll(() => {
    config = configFor({ ...env, ...own.bindings });
  });

  it("writes a group at most once per 10 seconds: the isolate holds occurrences back, the database refuses an early write, nothing is lost", async () => {
    const throttle = new FailureThrottle();
    const failure = aFailure(`bounds_${crypto.randomUUID().slice(0, 8)}`);
    expect(await storeFailure(config, failure, { throttle, now: 0 })).toBe("inserted");
    expect(await storeFailure(config, failure, { throttle, now: 1_000 })).toBe("held_back");
    expect(await storeFailure(config, failure, { throttle, now: 9_999 })).toBe("held_back");
    // This isolate's interval is over, but the database saw a write under 10 seconds ago (another
    // isolate's, as far as it knows): nothing is written and the occurrences are kept.
    expect(await storeFailure(config, failure, { throttle, now: 10_000 })).toBe("throttled");
    const [first] = (await groups()).filter((row) => row.error_type.includes(failure.diagnosis.constraint!));
    expect(first!.occurrences).toBe("1");
    await asRole(
      "superuser",
      (client) => client.query("UPDATE failure_groups SET last_written_at = now() - interval '11 seconds' WHERE fingerprint = $1", [first!.fingerprint]),
      own.database,
    );
    expect(await storeFailure(config, failure, { throttle, now: 20_000 })).toBe("updated");
    const [after] = (await groups()).filter((row) => row.fingerprint === first!.fingerprint);
    expect(after!.occurrences).toBe("5");
    expect(after!.last_seen_at.getTime()).toBeGreaterThan(first!.last_seen_at.getTime());
  });

  it("keeps at most 500 groups: a new one is dropped at the cap, existing ones still count", async () => {
    const existing = aFailure(`capped_${crypto.randomUUID().slice(0, 8)}`);
    expect(await storeFailure(config, existing, { throttle: new FailureThrottle() })).toBe("inserted");
    await asRole(
      "superuser",
      async (client) => {
        const { rows } = await client.query<{ count: string }>("SELECT count(*) FROM failure_groups");
        await client.query(
          `INSERT INTO failure_groups (fingerprint, code, route, error_type, sample, occurrences)
         SELECT encode(sha256(convert_to('filler ' || g || ' ' || $2, 'UTF8')), 'hex'), 'internal_error', '/filler', 'Filler', '{}', 1
         FROM generate_series(1, $1::int) g`,
          [500 - Number(rows[0]!.count), crypto.randomUUID()],
        );
      },
      own.database,
    );
    try {
      // The dropped group is logged for the operator, with the cap.
      const full = await captureLogs(async () =>
        expect(await storeFailure(config, aFailure(`over_${crypto.randomUUID().slice(0, 8)}`), { throttle: new FailureThrottle() })).toBe("full"),
      );
      expect(full.event("failure.store_full")).toMatchObject({ level: "warn", limit: 500 });
      expect((await groups()).length).toBe(500);
      // The cap is the database's own: the application role cannot get past it either.
      const direct = await asRole(
        "app",
        async (client) =>
          (await client.query("SELECT svc_record_failure($1, 'internal_error', '/x', 'X', '{}', 1) AS outcome", ["f".repeat(64)])).rows[0].outcome,
        own.database,
      );
      expect(direct).toBe("full");
      await asRole("superuser", (client) => client.query("UPDATE failure_groups SET last_written_at = now() - interval '11 seconds'"), own.database);
      expect(await storeFailure(config, existing, { throttle: new FailureThrottle() })).toBe("updated");
    } finally {
      await asRole("superuser", (client) => client.query("DELETE FROM failure_groups WHERE route = '/filler'"), own.database);
    }
  });
});

describe("retention", () => {
  const seedAged = (days: number) =>
    asRole(
      "superuser",
      async (client) => {
        const fingerprint = [...crypto.getRandomValues(new Uint8Array(32))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
        await client.query(
          `INSERT INTO failure_groups (fingerprint, code, route, error_type, sample, occurrences, first_seen_at, last_seen_at, last_written_at)
         VALUES ($1, 'internal_error', '/aged', 'Aged', '{}', 1, now() - make_interval(days => $2 + 1), now() - make_interval(days => $2), now() - make_interval(days => $2))`,
          [fingerprint, days],
        );
        return fingerprint;
      },
      own.database,
    );

  // The sweep's lines (cron.started, each step's count) are not what this test reads.
  const sweep = (overrides: Record<string, unknown> = {}) =>
    quietly(() =>
      worker.scheduled!(
        createScheduledController({ cron: SWEEP_CRON, scheduledTime: new Date() }),
        { ...env, ...own.bindings, ...overrides } as never,
        createExecutionContext(),
      ),
    );

  const left = async (fingerprints: string[]) => (await groups()).filter((row) => fingerprints.includes(row.fingerprint)).map((row) => row.fingerprint);

  it("deletes groups 30 days after their last occurrence by default, or after SVC_FAILURE_RETENTION_DAYS", async () => {
    const old = await seedAged(31);
    const recent = await seedAged(29);
    const week = await seedAged(8);
    await sweep();
    expect((await left([old, recent, week])).sort()).toEqual([recent, week].sort());
    await sweep({ SVC_FAILURE_RETENTION_DAYS: "7" });
    expect(await left([old, recent, week])).toEqual([]);
  });
});
