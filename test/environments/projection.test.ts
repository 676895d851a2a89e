import { beforeEach, describe, expect, it } from "vitest";
import { makeEvent, postEvents, type IngestBody } from "../support/events";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";

let orgId: string;
let token: string;

beforeEach(async () => {
  orgId = (await seedOrganization("proj")).id;
  token = (await seedToken(orgId, "engine")).token;
});

async function environment(envId: string) {
  return asRole("superuser", async (client) => {
    const { rows } = await client.query(
      `SELECT repository, branch, pull_request, state, last_sequence::int AS last_sequence, started_at, ttl_seconds, expires_at
         FROM environments WHERE org_id = $1 AND env_id = $2`,
      [orgId, envId],
    );
    return rows[0] ?? null;
  });
}

const envEvent = (envId: string, type: string, sequence: number, payload: Record<string, unknown> = {}) =>
  makeEvent({ type: `environment.${type}`, envId, sequence, payload: { repository: "acme/shop", branch: "main", ...payload } });

describe("environment projection", () => {
  it("creates the row from the first event that names its repository and keeps the payload properties", async () => {
    const response = await postEvents(token, [envEvent("pr-7", "queued", 1, { pull_request: 7, started_at: "2026-11-01T10:00:00Z", ttl_seconds: 3600 })]);
    expect(((await response.json()) as IngestBody).unprojected).toBe(0);
    const row = await environment("pr-7");
    expect(row).toMatchObject({ repository: "acme/shop", branch: "main", pull_request: 7, state: "queued", last_sequence: 1, ttl_seconds: 3600 });
    expect(new Date(row.started_at).toISOString()).toBe("2026-11-01T10:00:00.000Z");
    expect(new Date(row.expires_at).toISOString()).toBe("2026-11-01T11:00:00.000Z");
  });

  it("projects an envId holding quotes and backslashes as exactly that envId", async () => {
    const envId = "pr-'7\\'); DROP TABLE environments; --";
    await postEvents(token, [envEvent(envId, "creating", 1)]);
    const response = await postEvents(token, [envEvent(envId, "ready", 2)]);
    expect(((await response.json()) as IngestBody).unprojected).toBe(0);
    expect(await environment(envId)).toMatchObject({ state: "ready", last_sequence: 2 });
  });

  it("stores text holding quotes, backslashes and more exactly", async () => {
    const hostile = "it's \\'); DROP TABLE environments; -- Zoë ✓";
    const url = "https://pv.example.com/it's?q='%5C'";
    const response = await postEvents(token, [envEvent("lit", "ready", 1, { branch: hostile, preview_urls: [url] })]);
    expect(await response.json()).toMatchObject({ accepted: 1, unprojected: 0 });
    expect(await environment("lit")).toMatchObject({ repository: "acme/shop", branch: hostile, state: "ready", last_sequence: 1 });
    const urls = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT preview_urls FROM environments WHERE org_id = $1 AND env_id = 'lit'", [orgId])).rows[0],
    );
    expect(urls.preview_urls).toEqual([url]);
  });

  it("keeps the preview URLs the engine reports, until an event reports others", async () => {
    await postEvents(token, [
      envEvent("pv", "creating", 1),
      envEvent("pv", "ready", 2, { preview_urls: ["https://pv.example.com/", "http://127.0.0.1:3000/"] }),
    ]);
    await postEvents(token, [envEvent("pv", "sleeping", 3)]);
    const row = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT preview_urls FROM environments WHERE org_id = $1 AND env_id = 'pv'", [orgId])).rows[0],
    );
    expect(row.preview_urls).toEqual(["https://pv.example.com/", "http://127.0.0.1:3000/"]);
    const refused = await postEvents(token, [envEvent("pv", "ready", 4, { preview_urls: ["ftp://files.example.com/"] })]);
    expect(refused.status).toBe(207);
  });

  it("creates no row from an event that names no repository, and says so", async () => {
    const body = (await (await postEvents(token, [makeEvent({ type: "environment.ready", envId: "anon", sequence: 1, payload: {} })])).json()) as IngestBody;
    expect(body).toMatchObject({ accepted: 1, unprojected: 1 });
    expect(body.outcomes[0]!.note).toMatch(/repository/);
    expect(await environment("anon")).toBeNull();
  });

  it("orders a batch by sequence, whatever order it arrives in", async () => {
    await postEvents(token, [envEvent("e1", "ready", 3), envEvent("e1", "queued", 1), envEvent("e1", "creating", 2)]);
    expect(await environment("e1")).toMatchObject({ state: "ready", last_sequence: 3 });
  });

  it("never moves an environment backwards on a late arrival, and notes why", async () => {
    await postEvents(token, [envEvent("e2", "ready", 5)]);
    const body = (await (await postEvents(token, [envEvent("e2", "creating", 4)])).json()) as IngestBody;
    expect(body).toMatchObject({ accepted: 1, unprojected: 1 });
    expect(body.outcomes[0]!.note).toMatch(/sequence 5/);
    expect(await environment("e2")).toMatchObject({ state: "ready", last_sequence: 5 });
  });

  it("serializes concurrent batches for one environment: the highest sequence wins", async () => {
    await Promise.all([1, 2, 3, 4, 5, 6].map((sequence) => postEvents(token, [envEvent("e3", sequence % 2 ? "creating" : "ready", sequence)])));
    expect(await environment("e3")).toMatchObject({ state: "ready", last_sequence: 6 });
  });

  it("applies a batch's events again to the row another transaction created meanwhile, never over it", async () => {
    await asRole("app", async (client) => {
      await client.query("BEGIN");
      await client.query("SELECT set_config('app.org_id', $1, true)", [orgId]);
      // Created, not yet committed, as another batch creates it: the batch below finds no row to lock.
      const row = { env_id: "e5", created: true, repository: "acme/shop", state: "ready", last_sequence: 9, last_event_at: new Date().toISOString() };
      await client.query("SELECT * FROM svc_write_environments($1::jsonb)", [JSON.stringify([{ ...row, preview_urls: [] }])]);
      const pending = postEvents(token, [envEvent("e5", "creating", 5)]);
      // Time for the batch to reach its write: without its second pass it would overwrite the row, or fail on its key.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await client.query("COMMIT");
      const body = (await (await pending).json()) as IngestBody;
      expect(body).toMatchObject({ accepted: 1, unprojected: 1 });
      expect(body.outcomes[0]!.note).toMatch(/sequence 9/);
    });
    expect(await environment("e5")).toMatchObject({ state: "ready", last_sequence: 9 });
  });

  it("takes batches naming the same environments in any order side by side, none waiting on another both ways", async () => {
    const names = ["x-a", "x-b", "x-c"];
    const responses = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((round) =>
        postEvents(
          token,
          (round % 2 ? [...names].reverse() : names).map((envId) => envEvent(envId, "ready", round + 1)),
        ),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual([202, 202, 202, 202, 202, 202]);
    for (const envId of names) expect(await environment(envId)).toMatchObject({ state: "ready", last_sequence: 6 });
  });

  it("notes events that do not project: other types, no envId, unknown environment states", async () => {
    const body = (await (
      await postEvents(token, [
        makeEvent({ type: "engine.custom" }),
        makeEvent({ type: "environment.ready", payload: { repository: "acme/shop" } }),
        makeEvent({ type: "environment.exploded", envId: "e4", payload: { repository: "acme/shop" } }),
      ])
    ).json()) as IngestBody;
    expect(body).toMatchObject({ accepted: 3, unprojected: 3 });
    expect(body.outcomes.map((outcome) => outcome.note)).toEqual([
      expect.stringMatching(/projects nothing/),
      expect.stringMatching(/envId/),
      expect.stringMatching(/not a known environment state/),
    ]);
  });

  it("keeps environments of different organizations apart even under the same envId", async () => {
    const other = (await seedOrganization("proj-other")).id;
    const otherToken = (await seedToken(other, "engine")).token;
    await postEvents(token, [envEvent("shared", "ready", 1)]);
    await postEvents(otherToken, [envEvent("shared", "failed", 1, { repository: "other/repo" })]);
    expect(await environment("shared")).toMatchObject({ state: "ready", repository: "acme/shop" });
  });
});
