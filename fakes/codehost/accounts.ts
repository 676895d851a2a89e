// People and their organizations: the OAuth web flow (authorize, code for token), the signed-in
// user, their organizations and membership roles, and organization member lists (both lists paged).
// Control routes add people, rename an account (users and organizations alike: the account keeps its
// numeric id and the old login is free for a new account, with a new id) and register an account under
// a test's own id; `octocat` exists from the start. The authorize page signs in `?login=` at once; without
// it, it answers a page where a person picks an account or creates one (the App installed on it if asked).
// An organization in `hiddenOrgs` lists the person but will not say their role (403), as one with
// OAuth App access restrictions does.
import { html } from "hono/html";
import { fields, json, type FakeRequest, type FakeResponse, type Route } from "./http";
import type { FakeApp } from "./app";
import type { Ids } from "./ids";
import type { FakePaging } from "./paging";

type OrgRole = "admin" | "member";

/** A login as the code host allows one. */
const isLogin = (login: string) => login.length <= 39 && /^[A-Za-z0-9](?:-?[A-Za-z0-9])*$/.test(login);
const LOGIN_RULE = "Letters, digits and single hyphens between them, at most 39 characters.";
/** The client's parameters the sign-in page passes on to its forms. */
const CARRIED = ["client_id", "redirect_uri", "state", "scope"];

/** A user account; its login lives with its id in Ids (it can be renamed), its organizations by their ids. */
interface Person {
  id: number;
  name: string | null;
  email: string | null;
  orgs: Map<number, OrgRole>;
  hiddenOrgs: Set<number>;
}

export class FakeAccounts {
  /** By account id. */
  private readonly people = new Map<number, Person>();
  /** Authorization codes and access tokens -> the account id they act for. */
  private readonly codes = new Map<string, number>();
  private readonly accessTokens = new Map<string, number>();

  constructor(
    private readonly ids: Ids,
    private readonly app: FakeApp,
    private readonly paging: FakePaging,
  ) {
    this.add({ login: "octocat" });
  }

  private add(body: { login: string; name?: string; email?: string; orgs?: Record<string, OrgRole>; hiddenOrgs?: string[] }): Person {
    // A login already held is that account (posting it again changes what it holds); a free one is a new account.
    const person = {
      id: this.ids.account(body.login),
      name: body.name ?? null,
      email: body.email ?? null,
      orgs: new Map(Object.entries(body.orgs ?? {}).map(([org, role]) => [this.ids.account(org), role])),
      hiddenOrgs: new Set((body.hiddenOrgs ?? []).map((org) => this.ids.account(org))),
    };
    this.people.set(person.id, person);
    return person;
  }

  private byLogin(login: string): Person | null {
    const id = this.ids.holder(login);
    return id === undefined ? null : (this.people.get(id) ?? null);
  }

  private signedIn(request: FakeRequest): Person | null {
    const id = request.bearer ? this.accessTokens.get(request.bearer) : undefined;
    return id === undefined ? null : (this.people.get(id) ?? null);
  }

  private account(id: number) {
    return { login: this.ids.loginOf(id)!, id };
  }

  /** Sends the browser back to the client with a code for `person`, as the code host does once the person agreed. */
  private signIn(person: Person, redirect: string, state: string | null): FakeResponse {
    const code = crypto.randomUUID();
    this.codes.set(code, person.id);
    const target = new URL(redirect);
    target.searchParams.set("code", code);
    if (state !== null) target.searchParams.set("state", state);
    return { status: 302, headers: { location: target.toString() } };
  }

  /** `?login=` signs that account in at once (tests, scripts); without it a person picks or creates the account. */
  private authorize(request: FakeRequest) {
    const query = request.url.searchParams;
    const redirect = query.get("redirect_uri");
    if (!redirect) return { status: 400, text: "The fake's authorize address needs redirect_uri." };
    const login = query.get("login");
    if (login === null) return this.chooser(query, 200);
    const person = this.byLogin(login);
    if (!person)
      return { status: 400, text: "No account holds that ?login= (POST /_fake/users makes one; without login= a page lets a person pick or create one)." };
    return this.signIn(person, redirect, query.get("state"));
  }

  /** The chooser's form for a new account: made (the App installed on it when asked), then signed in. */
  private async create(request: FakeRequest): Promise<FakeResponse> {
    const form = new URLSearchParams(request.text);
    const redirect = form.get("redirect_uri");
    if (!redirect) return { status: 400, text: "The fake's authorize address needs redirect_uri." };
    const login = (form.get("login") ?? "").trim();
    if (!isLogin(login)) return this.chooser(form, 400, `"${login}" is not a login: ${LOGIN_RULE}`);
    if (this.ids.holder(login) !== undefined) return this.chooser(form, 409, `${login} is already an account: pick it from the list, or choose another login.`);
    const email = (form.get("email") ?? "").trim();
    const person = this.add({ login, ...(email ? { email } : {}) });
    if (form.get("install") !== null && this.app.canInstall) {
      const installed = await this.app.installOn(login);
      if (installed.delivered >= 300)
        return this.chooser(form, 502, `${login} was made, but the App's installation webhook was answered ${installed.delivered}.`);
    }
    return this.signIn(person, redirect, form.get("state"));
  }

  /**
   * The sign-in page: the accounts this fake holds (people, never organizations) to pick, and a form
   * for a new one. It carries the client's parameters along, and shows logins and nothing else (no
   * e-mail, no token, no secret), every value escaped.
   */
  private chooser(params: URLSearchParams, status: number, problem?: string): FakeResponse {
    const carried = [...params].filter(([name]) => CARRIED.includes(name));
    const hidden = carried.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
    const logins = [...this.people.keys()].map((id) => this.ids.loginOf(id)!).sort((a, b) => a.localeCompare(b));
    const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · the fake code host</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem; }
ul { list-style: none; padding: 0; } li { margin: 0.25rem 0; }
button, input { font: inherit; } :focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
[role="alert"] { color: #a51d2d; font-weight: 600; }
</style>
</head>
<body>
<main>
<h1>Sign in to the fake code host</h1>
<p>This is the local stand-in for the code host: it asks for no password. Pick the account that signs in, or create one.</p>
${problem ? html`<p role="alert">${problem}</p>` : ""}
<section aria-labelledby="accounts">
<h2 id="accounts">Accounts</h2>
<form method="get" action="/login/oauth/authorize">
${hidden}
<ul>
${logins.map((login) => html`<li><button type="submit" name="login" value="${login}">Sign in as ${login}</button></li>`)}
</ul>
</form>
</section>
<section aria-labelledby="create">
<h2 id="create">Create an account</h2>
<form method="post" action="/login/oauth/authorize">
${hidden}
<p><label for="login">Login</label><br>
<input id="login" name="login" required maxlength="39" autocomplete="off" aria-describedby="login-rule"></p>
<p id="login-rule">${LOGIN_RULE}</p>
<p><label for="email">Public e-mail address (optional)</label><br>
<input id="email" name="email" type="email" maxlength="254" autocomplete="off" aria-describedby="email-use"></p>
<p id="email-use">The address the control plane reads at sign-in: an invitation sent to it is accepted by this account.</p>
${
  this.app.canInstall
    ? html`<p><input type="checkbox" id="install" name="install" value="1" checked>
<label for="install">Install the App on it, so that it has an organization of its own once signed in</label></p>`
    : ""
}
<button type="submit">Create and sign in</button>
</form>
</section>
</main>
</body>
</html>
`;
    return {
      status,
      text: page.toString(),
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      },
    };
  }

  private token(request: FakeRequest) {
    const code = String(fields(request).code ?? "");
    const id = this.codes.get(code);
    // The code host answers 200 with an error member for a bad code.
    if (id === undefined) return json(200, { error: "bad_verification_code", error_description: "The code passed is incorrect or expired." });
    this.codes.delete(code);
    const accessToken = `gho_${crypto.randomUUID().replaceAll("-", "")}`;
    this.accessTokens.set(accessToken, id);
    return json(200, { access_token: accessToken, token_type: "bearer", scope: "read:user,user:email,read:org" });
  }

  routes(): Route[] {
    const unauthorized = json(401, { message: "Requires authentication" });
    return [
      ["GET", /^\/login\/oauth\/authorize$/, (request) => this.authorize(request)],
      ["POST", /^\/login\/oauth\/authorize$/, (request) => this.create(request)],
      ["POST", /^\/login\/oauth\/access_token$/, (request) => this.token(request)],
      [
        "GET",
        /^\/user$/,
        (request) => {
          const person = this.signedIn(request);
          if (!person) return unauthorized;
          return json(200, { ...this.account(person.id), name: person.name, email: person.email, avatar_url: `https://avatars.example/${person.id}` });
        },
      ],
      [
        "GET",
        /^\/user\/orgs$/,
        (request) => {
          const person = this.signedIn(request);
          if (!person) return unauthorized;
          return this.paging.page(
            request,
            [...person.orgs.keys()].map((id) => this.account(id)),
          );
        },
      ],
      [
        "GET",
        /^\/user\/memberships\/orgs\/([^/]+)$/,
        (request) => {
          const person = this.signedIn(request);
          if (!person) return unauthorized;
          const org = this.ids.holder(request.params[0]!);
          if (org !== undefined && person.hiddenOrgs.has(org)) {
            return json(403, {
              message: "Although you appear to have the correct authorization credentials, the organization has enabled OAuth App access restrictions.",
            });
          }
          const role = org === undefined ? undefined : person.orgs.get(org);
          if (!role) return json(404, { message: "Not Found" });
          return json(200, { state: "active", role, organization: this.account(org!), user: this.account(person.id) });
        },
      ],
      // An organization account by its login now (a user's login answers 404, as the code host's does).
      [
        "GET",
        /^\/orgs\/([^/]+)$/,
        (request) => {
          if (!this.signedIn(request) && this.app.installationOf(request.bearer) === null) return unauthorized;
          const id = this.ids.holder(request.params[0]!);
          return id === undefined || this.people.has(id) ? json(404, { message: "Not Found" }) : json(200, { ...this.account(id), type: "Organization" });
        },
      ],
      // A person's token or the App's installation token (as the App reads members to sync them).
      [
        "GET",
        /^\/orgs\/([^/]+)\/members$/,
        (request) => {
          if (!this.signedIn(request) && this.app.installationOf(request.bearer) === null) return unauthorized;
          const org = this.ids.holder(request.params[0]!);
          const role = request.url.searchParams.get("role") ?? "all";
          const members = [...this.people.values()].filter((person) => {
            const held = org === undefined ? undefined : person.orgs.get(org);
            return held !== undefined && (role === "all" || role === held);
          });
          return this.paging.page(
            request,
            members.map((person) => this.account(person.id)),
          );
        },
      ],
      // { login, name?, email?, orgs?: { <org login>: "admin" | "member" }, hiddenOrgs?: [<org login>] }
      [
        "POST",
        /^\/_fake\/users$/,
        (request) => {
          const body = fields(request) as { login?: unknown };
          if (typeof body.login !== "string") return json(400, { message: "login is required" });
          return json(201, { id: this.add(body as Parameters<FakeAccounts["add"]>[0]).id });
        },
      ],
      // { from, to }: the account keeps its id; 409 when `from` is nobody's or `to` is taken.
      [
        "POST",
        /^\/_fake\/accounts\/rename$/,
        (request) => {
          const { from, to } = fields(request) as { from?: unknown; to?: unknown };
          if (typeof from !== "string" || typeof to !== "string") return json(400, { message: "from and to (logins) are required" });
          const id = this.ids.rename(from, to);
          return id === null ? json(409, { message: `${from} is nobody's login, or ${to} is taken` }) : json(200, { id });
        },
      ],
      // { login, id }: an account under a test's own id (a test delivering installation webhooks itself); 409 when either is another's.
      [
        "POST",
        /^\/_fake\/accounts$/,
        (request) => {
          const { login, id } = fields(request) as { login?: unknown; id?: unknown };
          if (typeof login !== "string" || typeof id !== "number") return json(400, { message: "login and id are required" });
          return this.ids.adopt(login, id) ? json(200, { id }) : json(409, { message: `${login} or ${id} belongs to another account` });
        },
      ],
    ];
  }
}
