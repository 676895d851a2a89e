// The operator portal: /admin and admin.* only for an operator session (a customer session 403, none
// 401), refused naming SVC_ADMIN_DATABASE_URL while it is unset, reads across organizations as the
// operator role, and suspension from the portal through to the engine's answers.
import { describe, expect, it } from "vitest";
import { seedTenant } from "../support/bearer-routes";
import { makeEvent, postEvents } from "../support/events";
import { call, callWith } from "../support/http";
import { adminMutation, adminQuery, dataOf, OPERATOR_PASSWORD, operatorSignIn, seedOperator, signedInOperator } from "../support/operators";
import { pbkdf2Hash } from "../support/pbkdf2-hash";
import { rpcClient } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { statusAndCode } from "../support/refusals";

const OFF = { SVC_ADMIN_DATABASE_URL: undefined };

interface Organization {
  id: string;
  slug: string;
  plan: string;
  members: number;
  suspended: boolean;
  suspendedReason: string | null;
  suspendedBecause: string | null;
  usage: { environments: number; events30d: number };
}

const organizations = async (cookie: string, search?: string, env?: Record<string, unknown>) =>
  (await dataOf<{ organizations: Organization[] }>(adminQuery(cookie, "admin.organizations", search ? { search } : {}, env))).organizations;

const auditActions = (orgId: string) =>
  asRole(
    "superuser",
    async (client) =>
      (
        await client.query<{ action: string; actor_label: string; data: Record<string, unknown> }>(
          "SELECT action, actor_label, data FROM audit_log WHERE org_id = $1 ORDER BY seq",
          [orgId],
        )
      ).rows,
  );

describe("without SVC_ADMIN_DATABASE_URL", () => {
  it("refuses /admin, its routes and every admin.* procedure with 503 naming the variable, whoever asks", async () => {
    const operator = await signedInOperator();
    const page = await callWith(OFF, "/admin", { headers: { cookie: operator.cookie } });
    expect(page.status).toBe(503);
    expect(await page.text()).toContain("SVC_ADMIN_DATABASE_URL");
    for (const path of ["/admin/session", "/admin/organizations/anything"]) {
      const response = await callWith(OFF, path, { headers: { cookie: operator.cookie } });
      expect({ path, status: response.status }).toEqual({ path, status: 503 });
      await response.body?.cancel();
    }
    const signIn = await callWith(OFF, "/admin/signin", { method: "POST", json: { login: operator.login, password: OPERATOR_PASSWORD } });
    expect(signIn.status).toBe(503);
    expect(((await signIn.json()) as { error: string }).error).toContain("SVC_ADMIN_DATABASE_URL");
    expect(signIn.headers.get("x-svc-error-code")).toBe("operator_portal_off");
    for (const name of ["admin.overview", "admin.organizations", "admin.failures", "admin.operators"]) {
      const response = await adminQuery(operator.cookie, name, undefined, OFF);
      const body = (await response.json()) as { error: { message: string; data: { httpStatus: number } } };
      expect({ name, status: response.status, names: body.error.message.includes("SVC_ADMIN_DATABASE_URL") }).toEqual({ name, status: 503, names: true });
    }
    const suspend = await adminMutation(operator.cookie, operator.csrf, "admin.suspend", { organizationId: crypto.randomUUID() }, OFF);
    expect(suspend.status).toBe(503);
    await suspend.body?.cancel();
  });
});

describe("who may use the portal", () => {
  it("answers 401 without a session, 403 to a customer session, and never lists admin.* in /openapi.json", async () => {
    const customer = await seedSession(
      await seedPerson(`customer-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: (await seedOrganization("portal")).id, role: "owner" }]),
    );
    for (const name of ["admin.overview", "admin.organizations", "admin.failures", "admin.operators"]) {
      const none = await adminQuery(null, name);
      const asCustomer = await adminQuery(`svc_session=${customer}`, name);
      expect({ name, none: none.status, customer: asCustomer.status }).toEqual({ name, none: 401, customer: 403 });
      await Promise.all([none.body?.cancel(), asCustomer.body?.cancel()]);
    }
    // A made-up operator cookie is no session.
    const forged = await adminQuery("svc_operator_session=svc_ops_forged", "admin.organizations", {});
    expect(forged.status).toBe(401);
    await forged.body?.cancel();
    expect((await call("/admin/session")).status).toBe(401);
    expect(statusAndCode(await call("/admin/session", { headers: { cookie: `svc_session=${customer}` } }))).toEqual([403, "forbidden"]);

    const document = (await (await call("/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.includes("admin"))).toEqual([]);
  });

  it("keeps the operator session apart from the customer's: neither cookie stands for the other", async () => {
    const operator = await signedInOperator();
    const value = operator.cookie.split("=")[1]!;
    expect((await call("/auth/session", { headers: { cookie: `svc_session=${value}` } })).status).toBe(401);
    expect((await adminQuery(`svc_session=${value}`, "admin.overview")).status).toBe(401);
    const overview = await dataOf<{ operator: string; planSettable: boolean; licence: string | null }>(adminQuery(operator.cookie, "admin.overview"));
    expect(overview).toMatchObject({ operator: operator.login, planSettable: false });
  });

  it("serves the portal page at /admin and its sub-pages", async () => {
    for (const path of ["/admin", "/admin/organizations", "/admin/failures"]) {
      const response = await call(path);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expect(await response.text()).toContain("Operator portal");
    }
  });
});

describe("operator sign-in", () => {
  it("deletes sessions a day past their 12 hours, with their client address, and keeps younger ones", async () => {
    const login = await seedOperator();
    const tag = crypto.randomUUID().slice(0, 8);
    await asRole("superuser", (client) =>
      client.query(
        `INSERT INTO operator_sessions (operator_id, token_hash, client_address, created_at, last_seen_at, signed_out_at)
         SELECT id, $2 || '-' || hours, '10.1.2.3', now() - make_interval(hours => hours), now() - make_interval(hours => hours), now()
         FROM operators, unnest(ARRAY[40, 30]) AS hours WHERE login = $1`,
        [login, tag],
      ),
    );
    await operatorSignIn(login, OPERATOR_PASSWORD);
    const left = await asRole("superuser", async (client) =>
      (await client.query("SELECT token_hash FROM operator_sessions WHERE token_hash LIKE $1 || '-%'", [tag])).rows.map((row) => row.token_hash as string),
    );
    expect(left).toEqual([`${tag}-30`]);
  });

  it("sets an HttpOnly, SameSite=Strict cookie; a wrong password and an unknown login get the same 401", async () => {
    const login = await seedOperator();
    const headers = { "x-forwarded-for": "10.20.30.40" };
    const wrong = await call("/admin/signin", { method: "POST", json: { login, password: "not the password" }, headers });
    const unknown = await call("/admin/signin", {
      method: "POST",
      json: { login: `nobody-${crypto.randomUUID().slice(0, 6)}`, password: OPERATOR_PASSWORD },
      headers,
    });
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(await wrong.json()).toEqual(await unknown.json());

    const right = await call("/admin/signin", { method: "POST", json: { login: login.toUpperCase(), password: OPERATOR_PASSWORD }, headers });
    expect(right.status).toBe(200);
    await right.body?.cancel();
    const cookie = right.headers.getAll("set-cookie").find((line) => line.startsWith("svc_operator_session="))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    // Only the hash of the cookie's value is stored.
    const value = cookie.split(";")[0]!.split("=")[1]!;
    const stored = await asRole("superuser", async (client) =>
      (await client.query("SELECT token_hash FROM operator_sessions")).rows.map((row) => row.token_hash as string),
    );
    expect(stored).not.toContain(value);
    const password = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT password_hash FROM operators WHERE login = $1", [login])).rows[0].password_hash as string,
    );
    expect(password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  });

  it("signs in an operator whose password was hashed with PBKDF2 and rewrites it to argon2id; a wrong password rewrites nothing", {
    timeout: 60_000,
  }, async () => {
    const login = `op-${crypto.randomUUID().slice(0, 8)}`;
    const old = await pbkdf2Hash(OPERATOR_PASSWORD);
    await asRole("operator", (client) => client.query("INSERT INTO operators (login, password_hash) VALUES ($1, $2)", [login, old]));
    const stored = async () =>
      asRole(
        "superuser",
        async (client) => (await client.query("SELECT password_hash FROM operators WHERE login = $1", [login])).rows[0].password_hash as string,
      );

    const wrong = await call("/admin/signin", { method: "POST", json: { login, password: "not the password" }, headers: { "x-forwarded-for": "10.40.0.1" } });
    expect(wrong.status).toBe(401);
    await wrong.body?.cancel();
    expect(await stored()).toBe(old);

    await operatorSignIn(login);
    const rewritten = await stored();
    const phc = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(rewritten);
    expect(phc?.slice(1, 4)).toEqual(["19456", "2", "1"]);
    // The new hash opens the portal with the same password, and no longer with a wrong one.
    await operatorSignIn(login);
    expect(await stored()).toBe(rewritten);
    const wrongAgain = await call("/admin/signin", {
      method: "POST",
      json: { login, password: "not the password" },
      headers: { "x-forwarded-for": "10.40.0.2" },
    });
    expect(wrongAgain.status).toBe(401);
    await wrongAgain.body?.cancel();
  });

  it("sets __Host-svc_operator_session when cookies are Secure, and reads only that name then", async () => {
    const secure = { SVC_INSECURE_COOKIES: "" };
    const { cookie } = await operatorSignIn(await seedOperator(), OPERATOR_PASSWORD, secure);
    expect(cookie).toMatch(/^__Host-svc_operator_session=/);
    expect((await callWith(secure, "/admin/session", { headers: { cookie } })).status).toBe(200);
    expect((await callWith(secure, "/admin/session", { headers: { cookie: cookie.replace("__Host-", "") } })).status).toBe(401);
  });

  it("is rate limited per operator login however it is cased: 429 with Retry-After once the attempts run out", { timeout: 60_000 }, async () => {
    const login = await seedOperator();
    const spellings = [login, login.toUpperCase(), login[0]!.toUpperCase() + login.slice(1)];
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let attempt = 0; attempt < 11; attempt++) {
      last = await call("/admin/signin", {
        method: "POST",
        json: { login: spellings[attempt % 3], password: "wrong password!" },
        headers: { "x-forwarded-for": `10.30.0.${attempt + 1}` },
      });
      statuses.push(last.status);
      if (attempt < 10) await last.body?.cancel();
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await last!.json()) as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
  });

  it("refuses text no login can be (look-alike letters) without touching the operator's attempts", { timeout: 60_000 }, async () => {
    const login = `kit-${crypto.randomUUID().slice(0, 8)}`;
    await seedOperator(login);
    // KELVIN SIGN: JavaScript's toLowerCase folds it onto "k", yet it is in no login, so it names no
    // operator and draws nothing from theirs.
    const lookalikes = [`\u212A${login.slice(1)}`, `\u212A${login.slice(1).toUpperCase()}`];
    for (let attempt = 0; attempt < 10; attempt++) {
      const response = await call("/admin/signin", {
        method: "POST",
        json: { login: lookalikes[attempt % 2], password: OPERATOR_PASSWORD },
        headers: { "x-forwarded-for": `10.50.0.${attempt + 1}` },
      });
      expect(response.status).toBe(401);
      await response.body?.cancel();
    }
    expect((await operatorSignIn(login)).login).toBe(login);
  });

  it("signs out with the CSRF header, after which the cookie opens nothing", async () => {
    const operator = await signedInOperator();
    const refused = await call("/admin/signout", { method: "POST", headers: { cookie: operator.cookie } });
    expect(statusAndCode(refused)).toEqual([403, "csrf_failed"]);
    await refused.body?.cancel();
    const out = await call("/admin/signout", { method: "POST", headers: { cookie: operator.cookie, "x-svc-csrf": operator.csrf } });
    expect(out.status).toBe(200);
    await out.body?.cancel();
    expect((await adminQuery(operator.cookie, "admin.overview")).status).toBe(401);
  });
});

describe("the portal's reads, as the operator role", () => {
  it("lists organizations across tenants with plan, members, suspension and usage, and searches them", async () => {
    const operator = await signedInOperator();
    const a = await seedTenant("portal-list");
    const b = await seedTenant("portal-list");
    expect(
      (
        await postEvents(a.engine, [
          makeEvent({ type: "environment.queued", envId: "env-1", sequence: 1, payload: { repository: "acme/shop", branch: "main" } }),
        ])
      ).status,
    ).toBe(202);
    const slugOf = async (orgId: string) =>
      (await asRole("superuser", (client) => client.query("SELECT slug FROM organizations WHERE id = $1", [orgId]))).rows[0].slug as string;
    const listed = await organizations(operator.cookie, "portal-list", undefined);
    const first = listed.find((org) => org.id === a.orgId)!;
    expect(first).toMatchObject({ plan: "free", suspended: false, suspendedReason: null, usage: { environments: 1, events30d: 1 } });
    // The owner and the CLI token's admin.
    expect(first.members).toBe(2);
    expect(listed.map((org) => org.id)).toContain(b.orgId);
    const one = await organizations(operator.cookie, await slugOf(b.orgId));
    expect(one.map((org) => org.id)).toEqual([b.orgId]);
  });

  it("lists the operators and the failure groups; the application role can read neither", async () => {
    const operator = await signedInOperator();
    const { operators } = await dataOf<{ operators: Array<{ login: string; lastSignInAt: string | null }> }>(adminQuery(operator.cookie, "admin.operators"));
    expect(operators.find((row) => row.login === operator.login)?.lastSignInAt).toEqual(expect.any(String));
    const { groups } = await dataOf<{ groups: unknown[] }>(adminQuery(operator.cookie, "admin.failures"));
    expect(Array.isArray(groups)).toBe(true);
    for (const table of ["operators", "operator_sessions", "failure_groups"]) {
      const denied = await asRole("app", (client) =>
        client.query(`SELECT count(*) FROM ${table}`).then(
          () => "read",
          (error: { code: string }) => error.code,
        ),
      );
      expect({ table, denied }).toEqual({ table, denied: "42501" });
    }
  });
});

describe("leads and applications in the portal", () => {
  it("shows operators what the site's forms stored, newest first, which nothing else reads back", async () => {
    const operator = await signedInOperator();
    const company = `Lead ${crypto.randomUUID().slice(0, 8)}`;
    const useCase = `Previews for ${crypto.randomUUID().slice(0, 8)}`;
    // Each from an address of its own: the forms are rate limited per client address.
    const send = (path: string, body: unknown) =>
      call(path, {
        method: "POST",
        headers: { "x-forwarded-for": `10.9.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}` },
        json: body,
      });
    expect((await send("/v1/leads", { name: "Ada Lovelace", email: "ada@example.com", company, message: "Enterprise, please." })).status).toBe(201);
    expect((await send("/v1/applications", { name: "Grace Hopper", email: "grace@example.com", useCase })).status).toBe(201);

    const { leads } = await dataOf<{ leads: Array<Record<string, unknown>> }>(adminQuery(operator.cookie, "admin.leads"));
    const received = leads.map((row) => String(row.receivedAt));
    expect(received).toEqual([...received].sort().reverse());
    expect(leads.find((row) => row.company === company)).toMatchObject({
      name: "Ada Lovelace",
      email: "ada@example.com",
      company,
      message: "Enterprise, please.",
      receivedAt: expect.any(String),
    });
    const { applications } = await dataOf<{ applications: Array<Record<string, unknown>> }>(adminQuery(operator.cookie, "admin.applications", { limit: 500 }));
    expect(applications.find((row) => row.useCase === useCase)).toMatchObject({ name: "Grace Hopper", email: "grace@example.com" });
    const one = await dataOf<{ applications: unknown[] }>(adminQuery(operator.cookie, "admin.applications", { limit: 1 }));
    expect(one.applications).toHaveLength(1);
    for (const table of ["site_leads", "site_applications"]) {
      const denied = await asRole("app", (client) =>
        client.query(`SELECT count(*) FROM ${table}`).then(
          () => "read",
          (error: { code: string }) => error.code,
        ),
      );
      expect({ table, denied }).toEqual({ table, denied: "42501" });
    }
  });
});

describe("suspension from the portal", () => {
  it("refuses ingestion with 403 and retryAfterSeconds while command claims work, audits both changes, and lifts", async () => {
    const operator = await signedInOperator();
    const tenant = await seedTenant("suspended");
    const suspend = await dataOf(adminMutation(operator.cookie, operator.csrf, "admin.suspend", { organizationId: tenant.orgId, reason: "unpaid invoices" }));
    expect(suspend).toEqual({ suspended: true, changed: true });

    const refused = await postEvents(tenant.engine, [makeEvent()]);
    expect(statusAndCode(refused)).toEqual([403, "organization_suspended"]);
    const body = (await refused.json()) as { error: string; retryAfterSeconds: number };
    expect(body).toEqual({ error: expect.any(String), retryAfterSeconds: expect.any(Number) });
    expect(body.retryAfterSeconds).toBeGreaterThan(0);
    const claim = await call("/v1/commands/claim", { method: "POST", token: tenant.engine, json: {} });
    expect(claim.status).toBe(200);
    await claim.body?.cancel();
    expect((await organizations(operator.cookie)).find((org) => org.id === tenant.orgId)).toMatchObject({
      suspended: true,
      suspendedReason: "operator",
      suspendedBecause: "unpaid invoices",
    });
    // The organization's members read it: since when, by whom, why.
    const owner = await rpcClient(tenant.ownerSession);
    expect((await owner.organization.get.query({ orgId: tenant.orgId })).suspension).toEqual({
      since: expect.any(String),
      by: "operator",
      reason: "unpaid invoices",
    });

    // Suspending again changes nothing.
    expect(await dataOf(adminMutation(operator.cookie, operator.csrf, "admin.suspend", { organizationId: tenant.orgId, reason: "again" }))).toEqual({
      suspended: true,
      changed: false,
    });
    expect(await dataOf(adminMutation(operator.cookie, operator.csrf, "admin.liftSuspension", { organizationId: tenant.orgId }))).toEqual({
      suspended: false,
      changed: true,
    });
    expect((await postEvents(tenant.engine, [makeEvent()])).status).toBe(202);
    expect((await organizations(operator.cookie)).find((org) => org.id === tenant.orgId)).toMatchObject({ suspended: false, suspendedBecause: null });
    expect((await owner.organization.get.query({ orgId: tenant.orgId })).suspension).toBeNull();

    const audit = (await auditActions(tenant.orgId)).filter((row) => row.action.startsWith("organization.") && row.action.endsWith("suspended"));
    expect(audit).toEqual([
      {
        action: "organization.suspended",
        actor_label: `operator ${operator.login}`,
        data: { by: "operator", reason: "unpaid invoices", clientsDisconnected: 0 },
      },
      { action: "organization.unsuspended", actor_label: `operator ${operator.login}`, data: { by: "operator" } },
    ]);
  });

  it("asks a reason: none, empty, blank or over 500 characters is 400 and suspends nothing", async () => {
    const operator = await signedInOperator();
    const tenant = await seedTenant("suspend-reason");
    for (const reason of [undefined, "", "   ", "x".repeat(501)]) {
      const refused = await adminMutation(operator.cookie, operator.csrf, "admin.suspend", { organizationId: tenant.orgId, reason });
      expect({ reason, status: refused.status }).toEqual({ reason, status: 400 });
      await refused.body?.cancel();
    }
    expect((await organizations(operator.cookie)).find((org) => org.id === tenant.orgId)).toMatchObject({ suspended: false, suspendedBecause: null });
    expect((await auditActions(tenant.orgId)).filter((row) => row.action === "organization.suspended")).toEqual([]);
  });

  it("needs the CSRF header, answers 404 for no such organization, and leaves a deletion's suspension alone (409)", async () => {
    const operator = await signedInOperator();
    const tenant = await seedTenant("suspend-rules");
    const noCsrf = await adminMutation(operator.cookie, null, "admin.suspend", { organizationId: tenant.orgId });
    expect(statusAndCode(noCsrf)).toEqual([403, "csrf_failed"]);
    await noCsrf.body?.cancel();
    const missing = await adminMutation(operator.cookie, operator.csrf, "admin.suspend", { organizationId: crypto.randomUUID(), reason: "abuse" });
    expect(statusAndCode(missing)).toEqual([404, "not_found"]);
    await missing.body?.cancel();

    await asRole("superuser", (client) =>
      client.query("UPDATE organizations SET suspended_at = now(), suspended_reason = 'deletion' WHERE id = $1", [tenant.orgId]),
    );
    const lift = await adminMutation(operator.cookie, operator.csrf, "admin.liftSuspension", { organizationId: tenant.orgId });
    expect([lift.status, lift.headers.get("x-svc-error-code")]).toEqual([409, "state_conflict"]);
    expect(((await lift.json()) as { error: { message: string } }).error.message).toMatch(/deletion/);
    const suspended = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT suspended_reason FROM organizations WHERE id = $1", [tenant.orgId])).rows[0],
    );
    expect(suspended).toEqual({ suspended_reason: "deletion" });
  });
});

describe("setting a plan", () => {
  it("is refused (412) naming SVC_OPERATOR_SETS_PLAN unless it is 1; then it changes the plan, audited", async () => {
    const operator = await signedInOperator();
    const { orgId } = await seedTenant("portal-plan");
    const refused = await adminMutation(operator.cookie, operator.csrf, "admin.setPlan", { organizationId: orgId, plan: "team" });
    expect(refused.status).toBe(412);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("SVC_OPERATOR_SETS_PLAN");

    const on = { SVC_OPERATOR_SETS_PLAN: "1" };
    expect(await dataOf(adminMutation(operator.cookie, operator.csrf, "admin.setPlan", { organizationId: orgId, plan: "team" }, on))).toEqual({
      plan: "team",
      from: "free",
      changed: true,
    });
    expect((await organizations(operator.cookie)).find((org) => org.id === orgId)?.plan).toBe("team");
    expect((await auditActions(orgId)).find((row) => row.action === "plan.changed")).toMatchObject({
      actor_label: `operator ${operator.login}`,
      data: { from: "free", to: "team", source: "operator" },
    });
  });
});
