// The fake code host's sign-in side, as the console's sign-in will use it: the OAuth web flow, the
// user, their organizations and roles.
import { describe, expect, it } from "vitest";
import { fake } from "../support/codehost";

describe("the fake code host's accounts", () => {
  it("signs a person in through the OAuth web flow and answers who they are and what they hold", async () => {
    const login = `person-${crypto.randomUUID().slice(0, 8)}`;
    const org = `org-${crypto.randomUUID().slice(0, 8)}`;
    const hidden = `org-${crypto.randomUUID().slice(0, 8)}`;
    await fake("/_fake/users", { json: { login, name: "A Person", orgs: { [org]: "admin", [hidden]: "member" }, hiddenOrgs: [hidden] } });
    const redirectUri = encodeURIComponent("http://cp.test/cb");
    const authorize = await fake(`/login/oauth/authorize?client_id=x&redirect_uri=${redirectUri}&state=s1&login=${login}`, { redirect: "manual" });
    expect(authorize.status).toBe(302);
    const back = new URL(authorize.headers.get("location")!);
    expect(back.searchParams.get("state")).toBe("s1");
    const exchange = await fake("/login/oauth/access_token", { json: { client_id: "x", client_secret: "y", code: back.searchParams.get("code") } });
    const { access_token } = (await exchange.json()) as { access_token: string };
    const reused = await fake("/login/oauth/access_token", { json: { code: back.searchParams.get("code") } });
    expect(await reused.json()).toMatchObject({ error: "bad_verification_code" });

    const get = async (path: string) => (await fake(path, { bearer: access_token })).json();
    expect(await get("/user")).toMatchObject({ login, name: "A Person", id: expect.any(Number) });
    expect(await get("/user/orgs")).toEqual([
      { login: org, id: expect.any(Number) },
      { login: hidden, id: expect.any(Number) },
    ]);
    expect(await get(`/user/memberships/orgs/${org}`)).toMatchObject({ state: "active", role: "admin" });
    expect((await fake(`/user/memberships/orgs/${hidden}`, { bearer: access_token })).status).toBe(403);
    expect(await get(`/orgs/${org}/members?role=admin`)).toEqual([{ login, id: expect.any(Number) }]);
  });
});
