import { beforeEach, describe, expect, it } from "vitest";
import { call } from "../support/http";
import { makeEvent, postEvents } from "../support/events";
import { seedOrganization, seedToken } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { statusAndCode } from "../support/refusals";

let orgId: string;

beforeEach(async () => {
  orgId = (await seedOrganization("tokens")).id;
});

describe("POST /v1/tokens", () => {
  it("creates an engine token for a CLI token with tokens.manage; only its hash is stored and it works", async () => {
    const cli = (await seedToken(orgId, "cli", ["tokens.manage"])).token;
    const response = await call("/v1/tokens", { method: "POST", token: cli, json: { name: "ci runner" } });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; name: string; token: string; createdAt: string };
    expect(created).toMatchObject({ name: "ci runner", token: expect.stringMatching(/^svc_eng_/) });

    const stored = await asRole("superuser", async (client) => (await client.query("SELECT * FROM tokens WHERE id = $1", [created.id])).rows[0]);
    expect(stored.org_id).toBe(orgId);
    expect(JSON.stringify(stored)).not.toContain(created.token);

    expect((await postEvents(created.token, [makeEvent()])).status).toBe(202);
    const audit = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT action, target FROM audit_log WHERE org_id = $1 AND action = 'token.created'", [orgId])).rows,
    );
    expect(audit).toContainEqual({ action: "token.created", target: created.id });
  });

  it("refuses a CLI token without tokens.manage with 403 naming the login command and scope", async () => {
    const cli = (await seedToken(orgId, "cli", ["environments.view"])).token;
    const response = await call("/v1/tokens", { method: "POST", token: cli, json: {} });
    expect(statusAndCode(response)).toEqual([403, "forbidden"]);
    expect(((await response.json()) as { error: string }).error).toMatch(/login --scope tokens\.manage/);
  });

  it("refuses an engine token and no token with 401", async () => {
    const engine = (await seedToken(orgId, "engine")).token;
    expect((await call("/v1/tokens", { method: "POST", token: engine, json: {} })).status).toBe(401);
    expect((await call("/v1/tokens", { method: "POST", json: {} })).status).toBe(401);
  });

  it("answers 400 to an invalid body", async () => {
    const cli = (await seedToken(orgId, "cli", ["tokens.manage"])).token;
    expect((await call("/v1/tokens", { method: "POST", token: cli, json: { name: "" } })).status).toBe(400);
    expect((await call("/v1/tokens", { method: "POST", token: cli, json: { surprise: 1 } })).status).toBe(400);
  });
});

describe("POST /v1/tokens takes one scheme", () => {
  it("refuses a browser session, with or without the CSRF header (the console uses tokens.create)", async () => {
    const admin = browser(await seedSession(await seedPerson(`tok-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }])));
    const csrf = await admin.csrf();
    for (const answer of [await admin.post("/v1/tokens", { name: "from a browser" }), await admin.post("/v1/tokens", { name: "from a browser" }, csrf)]) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get("x-svc-error-code")).toBe("unauthenticated");
    }
    const minted = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT count(*)::int AS n FROM tokens WHERE org_id = $1 AND name = 'from a browser'", [orgId])).rows[0].n,
    );
    expect(minted).toBe(0);
  });
});
