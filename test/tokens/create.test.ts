import { beforeEach, describe, expect, it } from "vitest";
import { call } from "../support/http";
import { makeEvent, postEvents } from "../support/events";
import { seedOrganization, seedToken } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";

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

    const stored = await asRole("superuser", async (client) =>
      (await client.query("SELECT * FROM tokens WHERE id = $1", [created.id])).rows[0],
    );
    expect(stored.org_id).toBe(orgId);
    expect(JSON.stringify(stored)).not.toContain(created.token);

    expect((await postEvents(created.token, [makeEvent()])).status).toBe(202);
    const audit = await asRole("superuser", async (client) =>
      (await client.query("SELECT action, target FROM audit_log WHERE org_id = $1 AND action = 'token.created'", [orgId])).rows,
    );
    expect(audit).toContainEqual({ action: "token.created", target: created.id });
  });

  it("refuses a CLI token without tokens.manage with 403 naming the login command and scope", async () => {
    const cli = (await seedToken(orgId, "cli", ["environments.view"])).token;
    const response = await call("/v1/tokens", { method: "POST", token: cli, json: {} });
    expect(response.status).toBe(403);
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

describe("POST /v1/tokens with a browser session", () => {
  it("creates an engine token for a member whose role holds tokens.manage, with the CSRF header", async () => {
    const admin = browser(await seedSession(await seedPerson(`tok-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }])));
    expect((await admin.post("/v1/tokens", { orgId, name: "from the console" })).status).toBe(403); // no CSRF header
    const response = await admin.post("/v1/tokens", { orgId, name: "from the console" }, await admin.csrf());
    expect(response.status).toBe(201);
    const created = (await response.json()) as { token: string };
    expect((await postEvents(created.token, [makeEvent()])).status).toBe(202);
  });

  it("refuses a role without tokens.manage (403), another organization (404), no organization named (400), no session (401)", async () => {
    const member = browser(await seedSession(await seedPerson(`tok-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }])));
    const csrf = await member.csrf();
    expect((await member.post("/v1/tokens", { orgId }, csrf)).status).toBe(403);
    expect((await member.post("/v1/tokens", { orgId: (await seedOrganization("tok-other")).id }, csrf)).status).toBe(404);
    expect((await member.post("/v1/tokens", {}, csrf)).status).toBe(400);
    expect((await call("/v1/tokens", { method: "POST", json: { orgId } })).status).toBe(401);
  });
});
