import { describe, expect, inject, it } from "vitest";
import { elementsOf } from "../support/html";
import { callWith, setCookies } from "../support/http";
import { installApp, newRepository } from "../support/codehost";
import { browser } from "../support/sessions";
import { codehostUser, signIn } from "../support/signin";
import { asRole } from "../support/sql";

const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

const peopleWithLogin = (login: string) =>
  asRole("superuser", async (client) => (await client.query("SELECT id FROM people WHERE login = $1", [login])).rows.length);

const membership = (orgId: string, login: string) =>
  asRole(
    "superuser",
    async (client) =>
      (
        await client.query("SELECT m.role, m.role_source FROM memberships m JOIN people p ON p.id = m.person_id WHERE m.org_id = $1 AND p.login = $2", [
          orgId,
          login,
        ])
      ).rows[0] ?? null,
  );

const auditActions = (orgId: string) =>
  asRole(
    "superuser",
    async (client) =>
      (await client.query("SELECT action, data FROM audit_log WHERE org_id = $1 ORDER BY seq", [orgId])).rows as Array<{
        action: string;
        data: Record<string, unknown>;
      }>,
  );

/** An organization created by the installation webhook: it has no members. */
async function installedOrganization() {
  const repository = newRepository("org");
  const { orgId } = await installApp(repository);
  return { orgId, account: repository.owner };
}

describe("starting a sign-in", () => {
  it("redirects to the code host's authorize page with a state bound to the browser by a cookie", async () => {
    const response = await callWith({}, "/auth/signin", { redirect: "manual" });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(location.origin + location.pathname).toBe(`${inject("codehostBase")}/login/oauth/authorize`);
    expect(location.searchParams.get("client_id")).toBe("test-client-id");
    expect(location.searchParams.get("redirect_uri")).toBe("http://127.0.0.1:8080/auth/callback");
    const cookie = setCookies(response).find((line) => line.startsWith("svc_oauth_state="))!;
    expect(cookie).toContain(location.searchParams.get("state")!);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });

  it("refuses a callback whose state does not match this browser's, writing nothing", async () => {
    const login = unique("mallory");
    await codehostUser(login);
    const response = await callWith({}, "/auth/callback?code=x&state=forged", { headers: { cookie: "svc_oauth_state=other" }, redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    expect(await peopleWithLogin(login)).toBe(0);
  });
});

describe("the sign-in allowlist", () => {
  it("unset lets anyone in", async () => {
    const login = unique("anyone");
    await codehostUser(login);
    const { response, sessionToken } = await signIn(login);
    expect(response.status).toBe(302);
    expect(sessionToken).toMatch(/^svc_ses_/);
  });

  it("set but empty lets nobody in, with an HTML page, before any row is written", async () => {
    const login = unique("nobody");
    await codehostUser(login);
    const { response, sessionToken } = await signIn(login, { overrides: { SVC_SIGNIN_ALLOWLIST: "" } });
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    expect(sessionToken).toBeNull();
    expect(await peopleWithLogin(login)).toBe(0);
  });

  it("lets a listed login in, whatever its case, and refuses one not listed", async () => {
    const listed = unique("Listed");
    const other = unique("other");
    await codehostUser(listed);
    await codehostUser(other);
    const allowlist = { SVC_SIGNIN_ALLOWLIST: `someone-else, ${listed.toUpperCase()}` };
    expect((await signIn(listed, { overrides: allowlist })).response.status).toBe(302);
    const refused = await signIn(other, { overrides: allowlist });
    expect(refused.response.status).toBe(403);
    expect(await peopleWithLogin(other)).toBe(0);
  });

  it("links the signup address on the refusal page only when SVC_SIGNUP_URL is set", async () => {
    const login = unique("refused");
    await codehostUser(login);
    const withLink = await signIn(login, { overrides: { SVC_SIGNIN_ALLOWLIST: "x", SVC_SIGNUP_URL: "https://example.com/ask" } });
    expect(await withLink.response.text()).toContain('href="https://example.com/ask"');
    const withoutLink = await signIn(login, { overrides: { SVC_SIGNIN_ALLOWLIST: "x" } });
    expect(await withoutLink.response.text()).not.toContain('href="https://example.com/ask"');
  });

  it("shows a refused login that holds markup as text, and keeps a signup address with quotes inside its attribute", async () => {
    const login = `<script>alert(1)</script>${unique("x")}`;
    await codehostUser(login);
    const signup = `https://example.com/ask?from="><script>alert(2)</script>`;
    const refused = await signIn(login, { overrides: { SVC_SIGNIN_ALLOWLIST: "x", SVC_SIGNUP_URL: signup } });
    expect(refused.response.status).toBe(403);
    const page = await refused.response.text();
    expect(page).toContain(`<strong>&lt;script&gt;alert(1)&lt;/script&gt;${login.slice("<script>alert(1)</script>".length)}</strong>`);
    const elements = await elementsOf(page);
    expect(elements.filter((element) => element.tag === "script")).toEqual([]);
    expect(elements.filter((element) => element.tag === "a").map((element) => element.attributes)).toEqual([
      { class: "button", href: "https://example.com/ask?from=&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;" },
    ]);
  });
});

describe("first sign-in into an organization the installation webhook created", () => {
  it("makes a code-host organization administrator its owner and audits member.bootstrapped", async () => {
    const { orgId, account } = await installedOrganization();
    const login = unique("admin");
    await codehostUser(login, { [account]: "admin" });
    await signIn(login);
    expect(await membership(orgId, login)).toEqual({ role: "owner", role_source: "bootstrap" });
    expect((await auditActions(orgId)).map((entry) => entry.action)).toContain("member.bootstrapped");
  });

  it("makes a plain code-host member a member", async () => {
    const { orgId, account } = await installedOrganization();
    const login = unique("plain");
    await codehostUser(login, { [account]: "member" });
    await signIn(login);
    expect(await membership(orgId, login)).toMatchObject({ role: "member" });
  });

  it("when the code host will not say: a first sign-in gets member, an existing member keeps their role", async () => {
    const { orgId, account } = await installedOrganization();
    const first = unique("first");
    const quiet = unique("quiet");
    await codehostUser(first, { [account]: "admin" });
    await codehostUser(quiet, { [account]: "admin" }, [account]);
    await signIn(first);
    await signIn(quiet);
    expect(await membership(orgId, quiet)).toMatchObject({ role: "member" });
    await asRole("superuser", (client) =>
      client.query("UPDATE memberships SET role = 'admin' FROM people p WHERE p.id = person_id AND org_id = $1 AND p.login = $2", [orgId, quiet]),
    );
    await signIn(quiet);
    expect(await membership(orgId, quiet)).toMatchObject({ role: "admin" });
  });
});

describe("role sync on later sign-ins", () => {
  it("gives code-host owners admin and everyone else member, never overwriting a manual owner", async () => {
    const { orgId, account } = await installedOrganization();
    const founder = unique("founder");
    const colleague = unique("colleague");
    await codehostUser(founder, { [account]: "admin" });
    await codehostUser(colleague, { [account]: "admin" });
    await signIn(founder);
    await signIn(colleague);
    expect(await membership(orgId, colleague)).toMatchObject({ role: "admin" });

    await codehostUser(colleague, { [account]: "member" });
    await signIn(colleague);
    expect(await membership(orgId, colleague)).toMatchObject({ role: "member" });

    await asRole("superuser", (client) =>
      client.query("UPDATE memberships SET role = 'owner', role_source = 'manual' FROM people p WHERE p.id = person_id AND org_id = $1 AND p.login = $2", [
        orgId,
        colleague,
      ]),
    );
    await signIn(colleague);
    expect(await membership(orgId, colleague)).toEqual({ role: "owner", role_source: "manual" });
  });
});

describe("a person with no organization", () => {
  it("with SVC_SELF_SERVE_SIGNUP=1 gets one of their own on the free plan, owned by them and named after their login", async () => {
    const login = unique("Solo");
    await codehostUser(login);
    const { sessionToken } = await signIn(login, { overrides: { SVC_SELF_SERVE_SIGNUP: "1" } });
    const session = (await (await browser(sessionToken!).get("/auth/session")).json()) as {
      organizations: Array<{ slug: string; name: string; plan: string; role: string }>;
    };
    expect(session.organizations).toEqual([expect.objectContaining({ slug: login.toLowerCase(), name: login, plan: "free", role: "owner" })]);
  });

  it("otherwise waits, and is offered the App's install address when it is configured", async () => {
    const login = unique("waiter");
    await codehostUser(login);
    const installUrl = "https://github.com/apps/svc-test/installations/new";
    const { sessionToken } = await signIn(login, { overrides: { SVC_CODEHOST_APP_INSTALL_URL: installUrl } });
    const session = await (
      await callWith({ SVC_CODEHOST_APP_INSTALL_URL: installUrl }, "/auth/session", { headers: { cookie: `svc_session=${sessionToken}` } })
    ).json();
    expect(session).toMatchObject({ organizations: [], waiting: true, installUrl });
    // Whether the website assistant is on, so the console's navigation is whole from the first draw.
    expect(
      await (await callWith({ SVC_CMS_MODEL_API_KEY: "sk-test" }, "/auth/session", { headers: { cookie: `svc_session=${sessionToken}` } })).json(),
    ).toMatchObject({ assistantOn: true });
    expect(await (await callWith({ SVC_CMS_MODEL_API_KEY: "" }, "/auth/session", { headers: { cookie: `svc_session=${sessionToken}` } })).json()).toMatchObject(
      {
        assistantOn: false,
      },
    );
    expect(await (await browser(sessionToken!).get("/auth/session")).json()).toMatchObject({ waiting: true, installUrl: null });
  });
});

describe("the session cookie and the client's address", () => {
  it("is HttpOnly, SameSite=Lax, and Secure unless SVC_INSECURE_COOKIES=1", async () => {
    const login = unique("cookie");
    await codehostUser(login);
    const insecure = await signIn(login);
    const insecureCookie = setCookies(insecure.response).find((line) => line.startsWith("svc_session="))!;
    expect(insecureCookie).toMatch(/HttpOnly/i);
    expect(insecureCookie).toMatch(/SameSite=Lax/i);
    expect(insecureCookie).not.toMatch(/Secure/i);
    const secure = await signIn(login, { overrides: { SVC_INSECURE_COOKIES: "" } });
    expect(setCookies(secure.response).find((line) => line.startsWith("svc_session="))).toBeUndefined();
    const hostCookie = setCookies(secure.response).find((line) => line.startsWith("__Host-svc_session="))!;
    expect(hostCookie).toMatch(/; Secure/i);
    expect(hostCookie).toMatch(/; Path=\/(;|$)/i);
    expect(hostCookie).not.toMatch(/Domain=/i);
  });

  it("is read under exactly the name the configuration gives it: __Host-svc_session when Secure, svc_session with SVC_INSECURE_COOKIES=1", async () => {
    const login = unique("prefix");
    await codehostUser(login);
    const { sessionToken } = await signIn(login);
    const secure = { SVC_INSECURE_COOKIES: "" };
    const status = async (overrides: Record<string, unknown>, cookie: string) => (await callWith(overrides, "/auth/session", { headers: { cookie } })).status;
    expect(await status(secure, `__Host-svc_session=${sessionToken}`)).toBe(200);
    expect(await status(secure, `svc_session=${sessionToken}`)).toBe(401);
    expect(await status({}, `svc_session=${sessionToken}`)).toBe(200);
    expect(await status({}, `__Host-svc_session=${sessionToken}`)).toBe(401);
  });

  it("binds the sign-in's state with a __Host- cookie when Secure", async () => {
    const response = await callWith({ SVC_INSECURE_COOKIES: "" }, "/auth/signin", { redirect: "manual" });
    const cookie = setCookies(response).find((line) => line.startsWith("__Host-svc_oauth_state="))!;
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; Path=\/(;|$)/i);
  });

  it("records the address SVC_TRUSTED_PROXY_HOPS picks in the sign-in audit entry, and none when there is none", async () => {
    const { orgId, account } = await installedOrganization();
    const login = unique("traveller");
    await codehostUser(login, { [account]: "admin" });
    await signIn(login, { address: "203.0.113.50, 198.51.100.23" });
    await signIn(login, { address: null });
    const signIns = (await auditActions(orgId)).filter((entry) => entry.action === "session.signed_in");
    expect(signIns.map((entry) => entry.data.clientAddress)).toEqual(["198.51.100.23", null]);
  });

  it("limits sign-in starts per client address", async () => {
    // An address of its own: another test's sign-ins from a shared one would have drawn on its bucket.
    const address = `2001:db8:${crypto.randomUUID().slice(0, 4)}::${crypto.randomUUID().slice(0, 4)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) statuses.push((await callWith({}, "/auth/signin", { headers: { "x-forwarded-for": address }, redirect: "manual" })).status);
    expect(statuses.slice(0, 20).every((status) => status === 302)).toBe(true);
    expect(statuses).toContain(429);
  });

  it("limits the code host's callbacks per client address, in a bucket apart from sign-in starts", async () => {
    const address = `2001:db8:${crypto.randomUUID().slice(0, 4)}::${crypto.randomUUID().slice(0, 4)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      // A callback this browser never started: refused (400) until the address has used its allowance.
      const response = await callWith({}, "/auth/callback?code=guess&state=guess", { headers: { "x-forwarded-for": address }, redirect: "manual" });
      statuses.push(response.status);
      await response.body?.cancel();
    }
    expect(statuses).toEqual([...Array(20).fill(400), 429]);
    expect((await callWith({}, "/auth/signin", { headers: { "x-forwarded-for": address }, redirect: "manual" })).status).toBe(302);
  });

  it("counts every address of one IPv6 /64 in one bucket, and keeps each full address in the audit log", async () => {
    const network = `2001:db8:${crypto.randomUUID().slice(0, 4)}:${crypto.randomUUID().slice(0, 4)}`;
    const statuses: number[] = [];
    for (let i = 1; i <= 21; i++) {
      const address = `${network}:${i.toString(16)}:${crypto.randomUUID().slice(0, 4)}::${i.toString(16)}`;
      const response = await callWith({}, "/auth/signin", { headers: { "x-forwarded-for": address }, redirect: "manual" });
      statuses.push(response.status);
      await response.body?.cancel();
    }
    expect(statuses).toEqual([...Array(20).fill(302), 429]);
    // Another /64 has its own bucket, and the audit log records the full address, not the /64.
    const { orgId, account } = await installedOrganization();
    const login = unique("ipv6");
    await codehostUser(login, { [account]: "admin" });
    const elsewhere = `2001:db9:${crypto.randomUUID().slice(0, 4)}::abcd:1`;
    await signIn(login, { address: elsewhere });
    const signIns = (await auditActions(orgId)).filter((entry) => entry.action === "session.signed_in");
    expect(signIns.map((entry) => entry.data.clientAddress)).toEqual([elsewhere]);
  });
});
