// /v1/oidc/bindings: claiming (with proof of control), listing and revoking repository claims with a CLI token.
import { beforeEach, describe, expect, it } from "vitest";
import { APP_BASE_URL } from "../setup/bindings";
import { claim, exchange, identityToken, newRepository, type TestRepository } from "../support/codehost";
import { call } from "../support/http";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole } from "../support/sql";

let orgId: string;
let cli: string;

beforeEach(async () => {
  orgId = (await seedOrganization("bindings")).id;
  cli = (await seedToken(orgId, "cli", ["tokens.manage"])).token;
});

interface Binding {
  id: string;
  repository: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

async function created(repository: TestRepository, token = cli): Promise<Binding> {
  const response = await claim(token, repository);
  expect(response.status).toBe(201);
  return (await response.json()) as Binding;
}

async function anotherOrganization() {
  const other = (await seedOrganization("bindings-other")).id;
  return { other, otherCli: (await seedToken(other, "cli", ["tokens.manage"])).token };
}

const auditActions = (org: string) =>
  asRole("superuser", async (client) =>
    (await client.query("SELECT action, target, data FROM audit_log WHERE org_id = $1 AND action LIKE 'repository_claim.%' ORDER BY seq", [org])).rows);

const revoke = (path: string, token = cli) => call(`/v1/oidc/bindings/${path}`, { method: "DELETE", token });

describe("every claim route needs a CLI token carrying tokens.manage", () => {
  const routes: Array<[string, string, unknown?]> = [
    ["POST", "/v1/oidc/bindings", { repository: "acme/shop" }],
    ["GET", "/v1/oidc/bindings"],
    ["DELETE", `/v1/oidc/bindings/${crypto.randomUUID()}`],
    ["DELETE", "/v1/oidc/bindings/acme/shop"],
  ];
  for (const [method, path, json] of routes) {
    it(`${method} ${path.replace(/[0-9a-f-]{36}/, "{binding}")}: 401 without a token, with an unknown or an engine token; 403 naming the login command without the scope`, async () => {
      const engine = (await seedToken(orgId, "engine")).token;
      for (const token of [undefined, "svc_cli_unknown", engine]) {
        const response = await call(path, { method, ...(token ? { token } : {}), ...(json ? { json } : {}) });
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({ error: expect.any(String) });
      }
      const unscoped = (await seedToken(orgId, "cli", ["environments.view"])).token;
      const response = await call(path, { method, token: unscoped, ...(json ? { json } : {}) });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: string }).error).toMatch(/svc login --scope tokens\.manage/);
    });
  }
});

describe("POST /v1/oidc/bindings", () => {
  it("answers 201 with exactly the OidcBinding fields, and audits the claim", async () => {
    const repository = newRepository();
    const binding = await created(repository);
    expect(Object.keys(binding).sort()).toEqual(["createdAt", "id", "lastUsedAt", "repository", "revokedAt"]);
    expect(binding).toMatchObject({ repository: repository.full, lastUsedAt: null, revokedAt: null });
    expect(await auditActions(orgId)).toEqual([
      { action: "repository_claim.created", target: binding.id, data: { repository: repository.full, source: "cli", proof: "installation" } },
    ]);
  });

  it("answers the existing claim when this organization already holds the repository (any case)", async () => {
    const repository = newRepository();
    const first = await created(repository);
    expect((await created({ ...repository, full: repository.full.toUpperCase() })).id).toBe(first.id);
  });

  it("answers 409, saying retrying never helps, when another organization holds the repository (any case)", async () => {
    const repository = newRepository();
    await created(repository);
    const { otherCli } = await anotherOrganization();
    for (const full of [repository.full, repository.full.toUpperCase()]) {
      const response = await claim(otherCli, { ...repository, full });
      expect(response.status).toBe(409);
      expect(response.headers.get("x-svc-error-code")).toBe("claim_held_elsewhere");
      expect(((await response.json()) as { error: string }).error).toMatch(/never/);
    }
  });

  it("lets another organization claim a repository once its claim was revoked", async () => {
    const repository = newRepository();
    const first = await created(repository);
    expect((await revoke(first.id)).status).toBe(200);
    const { otherCli } = await anotherOrganization();
    expect((await claim(otherCli, repository)).status).toBe(201);
  });

  it("answers 400 to a body that is not JSON, not exactly { repository }, or not owner/name", async () => {
    const notJson = await call("/v1/oidc/bindings", { method: "POST", token: cli, body: "{", headers: { "content-type": "application/json" } });
    expect(notJson.status).toBe(400);
    for (const json of [{}, { repository: "no-slash" }, { repository: "a/b/c" }, { repository: "a/b", extra: 1 }, { repository: 7 }]) {
      const response = await call("/v1/oidc/bindings", { method: "POST", token: cli, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
    }
  });
});

describe("GET /v1/oidc/bindings", () => {
  it("answers the audience and this organization's claims only, revoked ones included", async () => {
    const live = await created(newRepository());
    const gone = await created(newRepository());
    await revoke(gone.id);
    const { otherCli } = await anotherOrganization();
    await created(newRepository(), otherCli);

    const response = await call("/v1/oidc/bindings", { token: cli });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { audience: string; bindings: Binding[] };
    expect(Object.keys(body).sort()).toEqual(["audience", "bindings"]);
    expect(body.audience).toBe(APP_BASE_URL);
    expect(body.bindings.map((binding) => binding.id).sort()).toEqual([live.id, gone.id].sort());
    expect(body.bindings.find((binding) => binding.id === gone.id)!.revokedAt).toEqual(expect.any(String));
  });
});

describe("DELETE /v1/oidc/bindings/{binding} and /{owner}/{name}", () => {
  it("revokes by id, audits it, and answers alreadyRevoked the second time", async () => {
    const repository = newRepository();
    const { full } = repository;
    const binding = await created(repository);
    const first = await revoke(binding.id);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ revoked: true, repository: full, alreadyRevoked: false, tokensRevoked: 0 });
    const second = await revoke(binding.id);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ revoked: true, repository: full, alreadyRevoked: true, tokensRevoked: 0 });
    expect((await auditActions(orgId)).map((entry) => entry.action)).toEqual(["repository_claim.created", "repository_claim.revoked"]);
  });

  it("revokes by owner/name, as two path segments or as one with the slash encoded, in any case", async () => {
    for (const path of [(full: string) => full, (full: string) => full.replace("/", "%2F"), (full: string) => full.toUpperCase()]) {
      const repository = newRepository();
      const { full } = repository;
      await created(repository);
      const response = await revoke(path(full));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ repository: full, alreadyRevoked: false });
    }
  });

  it("counts and kills every live engine token minted through the claim", async () => {
    const repository = newRepository();
    const binding = await created(repository);
    const minted = [];
    for (let i = 0; i < 2; i++) minted.push(((await (await exchange(await identityToken(repository))).json()) as { token: string }).token);
    expect(await (await revoke(repository.full)).json()).toMatchObject({ tokensRevoked: 2 });
    const live = await asRole("superuser", async (client) =>
      (await client.query("SELECT count(*)::int AS n FROM tokens WHERE binding_id = $1 AND revoked_at IS NULL", [binding.id])).rows[0].n);
    expect(live).toBe(0);
  });

  it("answers 404 alike for an unknown claim and for another organization's", async () => {
    const { otherCli } = await anotherOrganization();
    const theirs = await created(newRepository(), otherCli);
    const bodies = [];
    for (const path of [crypto.randomUUID(), theirs.id, theirs.repository, newRepository().full]) {
      const response = await revoke(path);
      expect(response.status).toBe(404);
      bodies.push(await response.json());
    }
    expect(new Set(bodies.map((body) => JSON.stringify(body))).size).toBe(1);
    expect((await call("/v1/oidc/bindings", { token: otherCli }).then((r) => r.json()) as { bindings: Binding[] }).bindings[0]!.revokedAt).toBeNull();
  });

  it("answers 400 to an identifier that is neither a uuid nor owner/name", async () => {
    for (const path of ["not-a-uuid", "a%2Fb%2Fc", "owner/na%20me"]) {
      const response = await revoke(path);
      expect(response.status, path).toBe(400);
    }
  });
});

describe("/openapi.json", () => {
  it("describes the identity exchange and the four claim routes, not the webhook", async () => {
    const doc = (await (await call("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(doc.paths["/v1/oidc/bindings"]!).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/v1/oidc/bindings/{binding}"]!)).toEqual(["delete"]);
    expect(Object.keys(doc.paths["/v1/oidc/bindings/{owner}/{name}"]!)).toEqual(["delete"]);
    expect(Object.keys(doc.paths["/v1/auth/codehost-oidc"]!.post!.responses).sort()).toEqual(["200", "400", "401", "403", "413", "429", "500"]);
    expect(doc.paths).not.toHaveProperty("/webhooks/codehost");
    for (const shape of ["OidcBinding", "BindingList", "BindingRevocation", "IdentityExchangeResult", "IdentityUnverified", "IdentityNotBound"]) {
      expect(doc.components.schemas).toHaveProperty(shape);
    }
  });
});
