// People and their organizations: the OAuth web flow (authorize, code for token), the signed-in
// user, their organizations and membership roles, and organization member lists (both lists paged).
// A control route adds people; `octocat` exists from the start. The authorize page signs in `?login=`
// (default octocat).
// An organization in `hiddenOrgs` lists the person but will not say their role (403), as one with
// OAuth App access restrictions does.
import { fields, json, type FakeRequest, type Route } from "./http";
import type { FakeApp } from "./app";
import type { Ids } from "./ids";
import type { FakePaging } from "./paging";

type OrgRole = "admin" | "member";

interface Person {
  login: string;
  id: number;
  name: string | null;
  email: string | null;
  orgs: Record<string, OrgRole>;
  hiddenOrgs: string[];
}

export class FakeAccounts {
  private readonly people = new Map<string, Person>();
  private readonly codes = new Map<string, string>();
  private readonly accessTokens = new Map<string, string>();

  constructor(
    private readonly ids: Ids,
    private readonly app: FakeApp,
    private readonly paging: FakePaging,
  ) {
    this.add({ login: "octocat" });
  }

  private add(body: { login: string; name?: string; email?: string; orgs?: Record<string, OrgRole>; hiddenOrgs?: string[] }): Person {
    const person = {
      login: body.login,
      id: this.ids.of("account", body.login),
      name: body.name ?? null,
      email: body.email ?? null,
      orgs: body.orgs ?? {},
      hiddenOrgs: (body.hiddenOrgs ?? []).map((org) => org.toLowerCase()),
    };
    this.people.set(body.login.toLowerCase(), person);
    return person;
  }

  private signedIn(request: FakeRequest): Person | null {
    const login = request.bearer ? this.accessTokens.get(request.bearer) : undefined;
    return login ? (this.people.get(login) ?? null) : null;
  }

  private authorize(request: FakeRequest) {
    const query = request.url.searchParams;
    const person = this.people.get((query.get("login") ?? "octocat").toLowerCase());
    const redirect = query.get("redirect_uri");
    if (!person || !redirect) return { status: 400, text: "The fake signs in an existing ?login= and needs redirect_uri." };
    const code = crypto.randomUUID();
    this.codes.set(code, person.login.toLowerCase());
    const target = new URL(redirect);
    target.searchParams.set("code", code);
    if (query.get("state") !== null) target.searchParams.set("state", query.get("state")!);
    return { status: 302, headers: { location: target.toString() } };
  }

  private token(request: FakeRequest) {
    const code = String(fields(request).code ?? "");
    const login = this.codes.get(code);
    // The code host answers 200 with an error member for a bad code.
    if (!login) return json(200, { error: "bad_verification_code", error_description: "The code passed is incorrect or expired." });
    this.codes.delete(code);
    const accessToken = `gho_${crypto.randomUUID().replaceAll("-", "")}`;
    this.accessTokens.set(accessToken, login);
    return json(200, { access_token: accessToken, token_type: "bearer", scope: "read:user,user:email,read:org" });
  }

  routes(): Route[] {
    const unauthorized = json(401, { message: "Requires authentication" });
    return [
      ["GET", /^\/login\/oauth\/authorize$/, (request) => this.authorize(request)],
      ["POST", /^\/login\/oauth\/access_token$/, (request) => this.token(request)],
      ["GET", /^\/user$/, (request) => {
        const person = this.signedIn(request);
        if (!person) return unauthorized;
        return json(200, { login: person.login, id: person.id, name: person.name, email: person.email, avatar_url: `https://avatars.example/${person.id}` });
      }],
      ["GET", /^\/user\/orgs$/, (request) => {
        const person = this.signedIn(request);
        if (!person) return unauthorized;
        return this.paging.page(request, Object.keys(person.orgs).map((login) => ({ login, id: this.ids.of("account", login) })));
      }],
      ["GET", /^\/user\/memberships\/orgs\/([^/]+)$/, (request) => {
        const person = this.signedIn(request);
        if (!person) return unauthorized;
        const org = request.params[0]!;
        if (person.hiddenOrgs.includes(org.toLowerCase())) {
          return json(403, { message: "Although you appear to have the correct authorization credentials, the organization has enabled OAuth App access restrictions." });
        }
        const role = Object.entries(person.orgs).find(([login]) => login.toLowerCase() === org.toLowerCase())?.[1];
        if (!role) return json(404, { message: "Not Found" });
        return json(200, { state: "active", role, organization: { login: org, id: this.ids.of("account", org) }, user: { login: person.login, id: person.id } });
      }],
      // A person's token or the App's installation token (as the App reads members to sync them).
      ["GET", /^\/orgs\/([^/]+)\/members$/, (request) => {
        if (!this.signedIn(request) && this.app.installationOf(request.bearer) === null) return unauthorized;
        const org = request.params[0]!.toLowerCase();
        const role = request.url.searchParams.get("role") ?? "all";
        const members = [...this.people.values()].filter((person) =>
          Object.entries(person.orgs).some(([login, held]) => login.toLowerCase() === org && (role === "all" || role === held)));
        return this.paging.page(request, members.map((person) => ({ login: person.login, id: person.id })));
      }],
      // { login, name?, email?, orgs?: { <org login>: "admin" | "member" }, hiddenOrgs?: [<org login>] }
      ["POST", /^\/_fake\/users$/, (request) => {
        const body = fields(request) as { login?: unknown };
        if (typeof body.login !== "string") return json(400, { message: "login is required" });
        return json(201, { id: this.add(body as Parameters<FakeAccounts["add"]>[0]).id });
      }],
    ];
  }
}
