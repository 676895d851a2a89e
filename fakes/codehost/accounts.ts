// People and their organizations: the OAuth web flow (authorize, code for token), the signed-in
// user, their organizations and membership roles, and organization member lists (both lists paged).
// Control routes add people, rename an account (users and organizations alike: the account keeps its
// numeric id and the old login is free for a new account, with a new id) and register an account under
// a test's own id; `octocat` exists from the start. The authorize page signs in `?login=` (default octocat).
// An organization in `hiddenOrgs` lists the person but will not say their role (403), as one with
// OAuth App access restrictions does.
import { fields, json, type FakeRequest, type Route } from "./http";
import type { FakeApp } from "./app";
import type { Ids } from "./ids";
import type { FakePaging } from "./paging";

type OrgRole = "admin" | "member";

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

  private authorize(request: FakeRequest) {
    const query = request.url.searchParams;
    const person = this.byLogin(query.get("login") ?? "octocat");
    const redirect = query.get("redirect_uri");
    if (!person || !redirect) return { status: 400, text: "The fake signs in an existing ?login= and needs redirect_uri." };
    const code = crypto.randomUUID();
    this.codes.set(code, person.id);
    const target = new URL(redirect);
    target.searchParams.set("code", code);
    if (query.get("state") !== null) target.searchParams.set("state", query.get("state")!);
    return { status: 302, headers: { location: target.toString() } };
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
