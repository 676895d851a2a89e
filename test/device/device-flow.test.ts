import { beforeEach, describe, expect, it } from "vitest";
import { NOT_UTF8 } from "../support/bodies";
import { elementsOf } from "../support/html";
import { call } from "../support/http";
import { poll, startFlow, uniqueAddress, waitInterval } from "../support/device";
import { seedOrganization } from "../support/seed";
import { browser, seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";
import { statusAndCode } from "../support/refusals";

let orgId: string;

beforeEach(async () => {
  orgId = (await seedOrganization("device")).id;
});

async function signedIn(role: "owner" | "admin" | "member" | "viewer") {
  const personId = await seedPerson(`dev-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role }]);
  return browser(await seedSession(personId));
}

async function decide(me: ReturnType<typeof browser>, userCode: string, approve: boolean) {
  return me.post("/auth/device/approve", { userCode, orgId, approve, ...(approve ? { codeConfirmed: true } : {}) }, await me.csrf());
}

describe("device flow", () => {
  it("answers with RFC 8628 codes and a verification page", async () => {
    const flow = await startFlow("tokens.manage");
    expect(flow).toMatchObject({ user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/), expires_in: 900, interval: 5 });
    expect(flow.verification_uri).toMatch(/\/auth\/device$/);
    const me = await signedIn("admin");
    const page = await me.get(`/auth/device?user_code=${flow.user_code}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(flow.user_code);
    expect((await call("/auth/device")).status).toBe(401);
  });

  it("shows the client as it named itself (unverified), every requested scope in words, and the code", async () => {
    const flow = await startFlow("tokens.manage environments.view", "<b>evil-cli</b>");
    const me = await signedIn("admin");
    const page = await me.get(`/auth/device?user_code=${flow.user_code}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/<strong id="client">&lt;b&gt;evil-cli&lt;\/b&gt;<\/strong> <span class="warn">\(as the client names itself: unverified\)/);
    expect(html).toContain(`<strong id="code">${flow.user_code}</strong>`);
    const scopes = /<ul id="scopes">(.*?)<\/ul>/s.exec(html)![1]!;
    expect([...scopes.matchAll(/<li>([^<]+) <span class="muted">\(<code>([^<]+)<\/code>\)/g)].map((match) => [match[1], match[2]])).toEqual([
      ["create and revoke tokens", "tokens.manage"],
      ["see environments, their runs and preview addresses", "environments.view"],
    ]);
    // Approving takes the person's own tick; the box starts unticked.
    expect(html).toMatch(/<input type="checkbox" name="codeConfirmed" required>/);
  });

  it("shows a client name that holds markup as text: the page runs no script but its own", async () => {
    const flow = await startFlow("environments.view", `<script>alert(1)</script>"><img src=x onerror=alert(2)>`);
    const page = await (await signedIn("admin")).get(`/auth/device?user_code=${flow.user_code}`);
    const html = await page.text();
    expect(html).toContain('<strong id="client">&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</strong>');
    const nonce = /'nonce-([A-Za-z0-9_-]+)'/.exec(page.headers.get("content-security-policy")!)![1]!;
    const elements = await elementsOf(html);
    expect(elements.filter((element) => element.tag === "script").map((element) => element.attributes)).toEqual([{ nonce }]);
    expect(elements.filter((element) => element.tag === "img")).toEqual([]);
  });

  it("asks for the code when the link carries none, and answers 404 to a code that names no pending sign-in", async () => {
    const me = await signedIn("member");
    const ask = await me.get("/auth/device");
    expect(ask.status).toBe(200);
    expect(await ask.text()).toMatch(/<input name="user_code"[^>]*required>/);
    const unknown = await me.get("/auth/device?user_code=ZZZZ-ZZZZ");
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("No pending sign-in has that code");
  });

  it("refuses an approval without codeConfirmed: true (400), and the request stays pending", async () => {
    const flow = await startFlow("environments.view");
    const me = await signedIn("admin");
    for (const body of [
      { userCode: flow.user_code, orgId, approve: true },
      { userCode: flow.user_code, orgId, approve: true, codeConfirmed: false },
    ]) {
      const refused = await me.post("/auth/device/approve", body, await me.csrf());
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: expect.stringMatching(/codeConfirmed/) });
    }
    expect((await poll(flow.device_code)).body.error).toBe("authorization_pending");
    // Denying needs no confirmation.
    expect(await (await me.post("/auth/device/approve", { userCode: flow.user_code, orgId, approve: false }, await me.csrf())).json()).toEqual({
      approved: false,
      scopes: [],
    });
  });

  it("may not be framed, and runs only its own script (this response's nonce)", async () => {
    const flow = await startFlow("environments.view");
    const page = await (await signedIn("admin")).get(`/auth/device?user_code=${flow.user_code}`);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const policy = page.headers.get("content-security-policy")!;
    expect(policy).toContain("frame-ancestors 'none'");
    const nonce = /script-src 'self' 'nonce-([A-Za-z0-9_-]+)'/.exec(policy)![1]!;
    const html = await page.text();
    expect([...html.matchAll(/<script([^>]*)>/g)].map((match) => match[1])).toEqual([` nonce="${nonce}"`]);
  });

  it("goes pending, slow_down, then issues a CLI token with the approved scopes once", async () => {
    const flow = await startFlow("tokens.manage environments.view");
    expect((await poll(flow.device_code)).body.error).toBe("authorization_pending");
    expect((await poll(flow.device_code)).body.error).toBe("slow_down");
    const me = await signedIn("admin");
    const decision = await decide(me, flow.user_code, true);
    expect(await decision.json()).toEqual({ approved: true, scopes: ["tokens.manage", "environments.view"] });
    await waitInterval();
    const issued = await poll(flow.device_code);
    expect(issued).toMatchObject({ status: 200, body: { access_token: expect.stringMatching(/^svc_cli_/), scope: "tokens.manage environments.view" } });
    // The token works as a CLI bearer with its scope.
    expect((await call("/v1/tokens", { method: "POST", token: issued.body.access_token!, json: {} })).status).toBe(201);
    await waitInterval();
    expect((await poll(flow.device_code)).body.error).toBe("invalid_grant");
  });

  it("keeps to its own routes: the authorization server's metadata does not name it and its token endpoint does not serve it", async () => {
    const metadata = (await (await call("/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>;
    expect(metadata.device_authorization_endpoint).toBeUndefined();
    expect(metadata.grant_types_supported).toEqual(["authorization_code"]);
    const flow = await startFlow("environments.view");
    const elsewhere = await call("/auth/mcp/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: flow.device_code, client_id: "svc-cli" }).toString(),
    });
    expect(await elsewhere.json()).toMatchObject({ error: "unsupported_grant_type" });
    // The CLI's own token route still answers it.
    expect((await poll(flow.device_code)).body.error).toBe("authorization_pending");
  });

  it("never grants more than the person's role allows", async () => {
    const flow = await startFlow("tokens.manage environments.view");
    const me = await signedIn("member");
    expect(await (await decide(me, flow.user_code, true)).json()).toEqual({ approved: true, scopes: ["environments.view"] });
    await waitInterval();
    const issued = await poll(flow.device_code);
    expect(issued.body.scope).toBe("environments.view");
    expect(statusAndCode(await call("/v1/tokens", { method: "POST", token: issued.body.access_token!, json: {} }))).toEqual([403, "forbidden"]);
  });

  it("answers access_denied once the person denies", async () => {
    const flow = await startFlow("environments.view");
    await decide(await signedIn("viewer"), flow.user_code, false);
    await waitInterval();
    expect((await poll(flow.device_code)).body.error).toBe("access_denied");
  });

  it("answers expired_token after 15 minutes", async () => {
    const flow = await startFlow("environments.view");
    await asRole("superuser", (client) => client.query("UPDATE device_authorizations SET expires_at = now() - interval '1 second'"));
    expect((await poll(flow.device_code)).body.error).toBe("expired_token");
  });

  it("refuses unknown scopes and grant types", async () => {
    const unknownScope = await call("/auth/device/code", {
      method: "POST",
      json: { client_id: "svc-cli", scope: "rule.world" },
      headers: { "x-forwarded-for": uniqueAddress() },
    });
    expect(unknownScope.status).toBe(400);
    expect(await unknownScope.json()).toMatchObject({ error: "invalid_scope" });
    const wrongGrant = await call("/auth/device/token", { method: "POST", json: { grant_type: "password", device_code: "x" } });
    expect(await wrongGrant.json()).toMatchObject({ error: "unsupported_grant_type" });
  });

  it("needs a session, the CSRF header and a membership to approve", async () => {
    const flow = await startFlow("environments.view");
    expect((await call("/auth/device/approve", { method: "POST", json: { userCode: flow.user_code, orgId, approve: true } })).status).toBe(401);
    const me = await signedIn("admin");
    expect(statusAndCode(await me.post("/auth/device/approve", { userCode: flow.user_code, orgId, approve: true }))).toEqual([403, "csrf_failed"]);
    const outsider = browser(await seedSession(await seedPerson(`out-${crypto.randomUUID().slice(0, 6)}`)));
    expect(statusAndCode(await decide(outsider, flow.user_code, true))).toEqual([404, "not_found"]);
    expect(statusAndCode(await decide(me, "ZZZZ-ZZZZ", true))).toEqual([404, "not_found"]);
  });

  it("limits device codes per client address", async () => {
    const address = uniqueAddress();
    const ask = () =>
      call("/auth/device/code", { method: "POST", json: { client_id: "svc-cli", scope: "" }, headers: { "x-forwarded-for": `203.0.113.9, ${address}` } });
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await ask()).status);
    expect(statuses.slice(0, 20).every((status) => status === 200)).toBe(true);
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});

describe("device flow: bodies it refuses", () => {
  const ask = (body: BodyInit, contentType = "application/x-www-form-urlencoded") =>
    call("/auth/device/code", { method: "POST", body, headers: { "content-type": contentType, "x-forwarded-for": uniqueAddress() } });

  it("answers RFC 8628 invalid_request (and no code) to an empty, non-UTF-8, repeated, nested, NUL-holding or untyped body", async () => {
    const refused: Array<[string, BodyInit, string?]> = [
      ["empty", ""],
      ["no client_id", "scope=tokens.manage"],
      ["not UTF-8", NOT_UTF8, "application/json"],
      ["a repeated parameter", "client_id=svc-cli&scope=a&scope=b"],
      ["deeply nested JSON", `{"client_id":${"[".repeat(5000)}${"]".repeat(5000)}}`, "application/json"],
      ["a NUL in the scope", "client_id=svc-cli&scope=tokens.manage%00"],
      ["a client_id over 100 characters", `client_id=${"c".repeat(101)}`],
      ["text/plain", "client_id=svc-cli", "text/plain"],
    ];
    for (const [what, body, type] of refused) {
      const response = await ask(body, type);
      expect(response.status, what).toBe(400);
      expect(await response.json(), what).toEqual({ error: "invalid_request", error_description: expect.any(String) });
    }
  });

  it("answers 413 to a 10 MB body without reading it", async () => {
    const response = await ask(new Uint8Array(10_000_000).fill(0x61));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/16 KiB/) });
  });

  it("polls with the same checks: a NUL in the device code is invalid_request", async () => {
    const response = await call("/auth/device/token", {
      method: "POST",
      body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=x%00",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_request", error_description: expect.stringMatching(/device_code.*NUL/) });
  });
});
