// The fake code host's sign-in page, as a person meets it locally: without `?login=` it lists the
// accounts to pick and offers to create one, which then signs in; what it shows is escaped and holds
// no secret. (`?login=` signing in at once: test/codehost/fake.test.ts.)
import { describe, expect, inject, it } from "vitest";
import { fake } from "../support/codehost";

const REDIRECT = "http://cp.test/cb";
const authorizeAddress = (query: Record<string, string>) =>
  `/login/oauth/authorize?${new URLSearchParams({ client_id: "x", redirect_uri: REDIRECT, ...query })}`;

/** The create form as a browser posts it. */
const create = (form: Record<string, string>) =>
  fetch(`${inject("codehostBase")}/login/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: "x", redirect_uri: REDIRECT, ...form }),
  });

const alertOf = (page: string) => /<p role="alert">([^<]*)<\/p>/.exec(page)?.[1];

describe("the fake code host's sign-in page", () => {
  it("lists the accounts it holds, each a button, and carries the client's parameters, every value escaped and no e-mail shown", async () => {
    const marked = `<img src=x onerror="alert(1)">-${crypto.randomUUID().slice(0, 6)}`;
    await fake("/_fake/users", { json: { login: marked, email: "private@example.test" } });
    const answer = await fake(authorizeAddress({ state: `s"><script>` }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
    const page = await answer.text();
    expect(page).toContain("<h1>Sign in to the fake code host</h1>");
    expect(page).toContain('<button type="submit" name="login" value="octocat">Sign in as octocat</button>');
    const escaped = marked.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
    expect(page).toContain(`Sign in as ${escaped}</button>`);
    expect(page).not.toContain("<img");
    expect(page).not.toContain("<script>");
    expect(page).toContain('<input type="hidden" name="state" value="s&quot;&gt;&lt;script&gt;">');
    expect(page).toContain(`<input type="hidden" name="redirect_uri" value="${REDIRECT}">`);
    expect(page).not.toContain("private@example.test");
    expect(page).toContain('<label for="login">Login</label>');
  });

  it("creates a new account from its form and signs it in: the code it hands back is that account's", async () => {
    const login = `new-${crypto.randomUUID().slice(0, 8)}`;
    const answer = await create({ login, state: "s2" });
    expect(answer.status).toBe(302);
    const back = new URL(answer.headers.get("location")!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe("s2");
    const exchanged = await fake("/login/oauth/access_token", { json: { code: back.searchParams.get("code") } });
    const { access_token } = (await exchanged.json()) as { access_token: string };
    expect(await (await fake("/user", { bearer: access_token })).json()).toMatchObject({ login, id: expect.any(Number) });
    // The new account is listed from now on.
    expect(await (await fake(authorizeAddress({}))).text()).toContain(`value="${login}">Sign in as ${login}</button>`);
  });

  it("refuses a login someone holds and one the code host would not allow, saying why on the page", async () => {
    const taken = await create({ login: "octocat" });
    expect(taken.status).toBe(409);
    expect(alertOf(await taken.text())).toBe("octocat is already an account: pick it from the list, or choose another login.");
    const bad = await create({ login: "-not a login" });
    expect(bad.status).toBe(400);
    expect(alertOf(await bad.text())).toMatch(/^&quot;-not a login&quot; is not a login: Letters, digits and single hyphens/);
  });
});
