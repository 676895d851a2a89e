import { beforeEach, describe, expect, it } from "vitest";
import { inTenant } from "../../db/transaction";
import { removeMember } from "../../worker/members/remove";
import { call } from "../support/http";
import { seedOrganization } from "../support/seed";
import { appPool } from "../support/sql";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { statusAndCode } from "../support/refusals";

let orgId: string;
let personId: string;
let token: string;

beforeEach(async () => {
  orgId = (await seedOrganization("sess")).id;
  personId = await seedPerson(`someone-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }]);
  token = await seedSession(personId);
});

const backdate = (column: "last_seen_at" | "created_at", interval: string) =>
  asRole("superuser", (client) => client.query(`UPDATE sessions SET ${column} = now() - $2::interval WHERE person_id = $1`, [personId, interval]));

describe("GET /auth/session", () => {
  it("returns the CSRF token (at least 32 characters), the person and their organizations", async () => {
    const response = await browser(token).get("/auth/session");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { csrfToken: string; person: { id: string }; organizations: Array<{ id: string; role: string }>; waiting: boolean };
    expect(body.csrfToken.length).toBeGreaterThanOrEqual(32);
    expect(body.person.id).toBe(personId);
    expect(body.organizations).toEqual([expect.objectContaining({ id: orgId, role: "admin" })]);
    expect(body.waiting).toBe(false);
  });

  it("answers 401 without a session or with an unknown one", async () => {
    expect((await call("/auth/session")).status).toBe(401);
    expect((await browser("svc_ses_unknown").get("/auth/session")).status).toBe(401);
  });
});

describe("CSRF", () => {
  it("refuses a mutation carrying the session without the header or with a wrong one", async () => {
    const me = browser(token);
    expect(statusAndCode(await me.post("/auth/signout", {}))).toEqual([403, "csrf_failed"]);
    expect(statusAndCode(await me.post("/auth/signout", {}, "x".repeat(43)))).toEqual([403, "csrf_failed"]);
    expect((await me.get("/auth/session")).status).toBe(200); // still signed in
    expect((await me.post("/auth/signout", {}, await me.csrf())).status).toBe(200);
  });

  it("does not accept another session's token", async () => {
    const other = await seedSession(personId);
    expect(statusAndCode(await browser(token).post("/auth/signout", {}, await browser(other).csrf()))).toEqual([403, "csrf_failed"]);
  });
});

describe("session lifetime", () => {
  it("ends on sign-out, effective on the next request", async () => {
    const me = browser(token);
    const response = await me.post("/auth/signout", {}, await me.csrf());
    expect(response.headers.get("set-cookie")).toMatch(/svc_session=;/);
    expect((await me.get("/auth/session")).status).toBe(401);
  });

  it("lives up to 12 hours idle, not beyond", async () => {
    await backdate("last_seen_at", "11 hours 58 minutes");
    expect((await browser(token).get("/auth/session")).status).toBe(200);
    await backdate("last_seen_at", "12 hours 1 minute");
    expect((await browser(token).get("/auth/session")).status).toBe(401);
  });

  it("lives at most 30 days since creation, however active", async () => {
    await backdate("created_at", "29 days 23 hours");
    expect((await browser(token).get("/auth/session")).status).toBe(200);
    await backdate("created_at", "30 days 1 minute");
    expect((await browser(token).get("/auth/session")).status).toBe(401);
  });

  it("dies when the member is removed, in the same transaction", async () => {
    const pool = appPool();
    try {
      await inTenant(pool.connect, orgId, (tx) => removeMember(tx, orgId, personId, { personId: null, label: "test" }));
    } finally {
      await pool.end();
    }
    expect((await browser(token).get("/auth/session")).status).toBe(401);
  });
});

describe("GET /auth/sessions", () => {
  it("lists the person's live sessions, never a token or a hash", async () => {
    const second = await seedSession(personId);
    const response = await browser(token).get("/auth/sessions");
    const text = await response.text();
    const hashes = await asRole("superuser", async (client) => (await client.query("SELECT token_hash FROM sessions WHERE person_id = $1", [personId])).rows);
    for (const secret of [token, second, ...hashes.map((row) => row.token_hash as string)]) expect(text).not.toContain(secret);
    const { sessions } = JSON.parse(text) as { sessions: Array<{ current: boolean }> };
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((session) => session.current)).toHaveLength(1);
  });
});
