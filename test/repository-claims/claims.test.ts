// /v1/oidc/bindings: claiming (with proof of control), listing and revoking repository claims with a CLI token.
import { beforeEach, describe, expect, it } from "vitest";
import { APP_BASE_URL } from "../setup/bindings";
import { arrangeInstallationProof, claim, exchange, identityToken, installApp, newRepository, postClaim, type TestRepository } from "../support/codehost";
import { call } from "../support/http";
import { expectRefusal, statusAndCode } from "../support/refusals";
import { rpcClient } from "../support/rpc";
import { seedOrganization, seedToken } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
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
  asRole(
    "superuser",
    async (client) =>
      (await client.query("SELECT action, target, data FROM audit_log WHERE org_id = $1 AND action LIKE 'repository_claim.%' ORDER BY seq", [org])).rows,
  );

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
      expect(statusAndCode(response)).toEqual([403, "forbidden"]);
      expect(((await response.json()) as { error: string }).error).toMatch(/svc login --scope tokens\.manage/);
    });
  }
});

describe("the token is checked before the input: 401, then 403, then 400", () => {
  const badInput: Array<[string, string, unknown?]> = [
    ["POST", "/v1/oidc/bindings", { repository: "no-slash", extra: 1 }],
    ["POST", "/v1/oidc/bindings", "{not json"],
    ["DELETE", "/v1/oidc/bindings/not-a-uuid"],
    ["DELETE", "/v1/oidc/bindings/owner/na%20me"],
  ];
  it.each(badInput)("%s %s with bad input: 401 with no valid token, 403 without the scope, 400 only for a token that may", async (method, path, body) => {
    const input = typeof body === "string" ? { body, headers: { "content-type": "application/json" } } : body ? { json: body } : {};
    for (const token of [undefined, "svc_cli_unknown", (await seedToken(orgId, "engine")).token]) {
      expect((await call(path, { method, ...(token ? { token } : {}), ...input })).status).toBe(401);
    }
    expect(statusAndCode(await call(path, { method, token: (await seedToken(orgId, "cli", ["environments.view"])).token, ...input }))).toEqual([
      403,
      "forbidden",
    ]);
    expect((await call(path, { method, token: cli, ...input })).status).toBe(400);
  });
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
    const live = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT count(*)::int AS n FROM tokens WHERE binding_id = $1 AND revoked_at IS NULL", [binding.id])).rows[0].n,
    );
    expect(live).toBe(0);
  });

  it("answers 404 alike for an unknown claim and for another organization's", async () => {
    const { otherCli } = await anotherOrganization();
    const theirs = await created(newRepository(), otherCli);
    const bodies = [];
    for (const path of [crypto.randomUUID(), theirs.id, theirs.repository, newRepository().full]) {
      const response = await revoke(path);
      expect(statusAndCode(response)).toEqual([404, "not_found"]);
      bodies.push(await response.json());
    }
    expect(new Set(bodies.map((body) => JSON.stringify(body))).size).toBe(1);
    expect(((await call("/v1/oidc/bindings", { token: otherCli }).then((r) => r.json())) as { bindings: Binding[] }).bindings[0]!.revokedAt).toBeNull();
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

/** The one-time audience a pending claim's refusal names. */
const audienceIn = (sentence: string) => /audience (\S+) and/.exec(sentence)?.[1] ?? null;

/** POST without proof: 403 claim_proof_required naming the one-time audience. */
async function pending(repository: string, token = cli): Promise<string> {
  const response = await postClaim(token, repository);
  expect(statusAndCode(response)).toEqual([403, "claim_proof_required"]);
  expect(response.headers.get("x-svc-error-code")).toBe("claim_proof_required");
  const { error } = (await response.json()) as { error: string };
  const audience = audienceIn(error);
  expect(audience).toMatch(new RegExp(`^${APP_BASE_URL}/v1/oidc/bindings/proof/[A-Za-z0-9_-]{32}$`));
  return audience!;
}

const liveClaims = (repository: string) =>
  asRole(
    "superuser",
    async (client) =>
      (
        await client.query("SELECT org_id, proof, repository_id, owner_id FROM repository_claims WHERE repository_key = lower($1) AND revoked_at IS NULL", [
          repository,
        ])
      ).rows,
  );

describe("a claim needs proof that the organization controls the repository", () => {
  it("the squatter: a stranger's claim on bigcorp/payments stays pending and grants nothing; the owner's workflow never gets the stranger's token; the owner still claims it", async () => {
    const payments = newRepository("bigcorp", "payments");
    const { other: stranger, otherCli: strangerCli } = await anotherOrganization();
    const audience = await pending(payments.full, strangerCli);
    expect(await liveClaims(payments.full)).toEqual([]);
    expect(((await (await call("/v1/oidc/bindings", { token: strangerCli })).json()) as { bindings: Binding[] }).bindings).toEqual([]);
    // The stranger mints a token for its own audience from its own repository: it proves nothing about bigcorp/payments.
    const strangers = newRepository("stranger", "payments");
    const wrong = await exchange(await identityToken(strangers, { aud: audience }));
    expect({ status: wrong.status, reason: ((await wrong.json()) as { reason: string }).reason }).toEqual({ status: 403, reason: "no_binding" });

    // The owner's workflow: nobody holds a claim, so the exchange grants nothing, and certainly not the stranger's organization.
    const refused = await exchange(await identityToken(payments));
    expect(statusAndCode(refused)).toEqual([403, "identity_not_bound"]);
    // The owner claims with its App installation on bigcorp: 201, and its workflows get its own engine tokens.
    const binding = await created(payments);
    expect(await liveClaims(payments.full)).toEqual([
      { org_id: orgId, proof: "installation", repository_id: payments.repositoryId, owner_id: payments.ownerId },
    ]);
    const minted = (await (await exchange(await identityToken(payments))).json()) as { org_id: string };
    expect(minted.org_id).toBe(orgId);
    expect(minted.org_id).not.toBe(stranger);
    // The stranger's claim can no longer complete, even from the right repository.
    const late = await exchange(await identityToken(payments, { aud: audience }));
    expect(statusAndCode(late)).toEqual([403, "identity_not_bound"]);
    await expectRefusal(
      () => claim(strangerCli, payments),
      { status: 409, code: "claim_held_elsewhere" },
      () => liveClaims(payments.full),
    );
    expect((await liveClaims(payments.full)).map((row) => row.org_id)).toEqual([orgId]);
    expect(binding.repository).toBe(payments.full);
  });

  it("does not take an installation on another account that once had the owner's login as proof", async () => {
    const repository = newRepository();
    await arrangeInstallationProof(orgId, repository, "777777777777");
    await pending(repository.full);
    expect(await liveClaims(repository.full)).toEqual([]);
  });

  it("a workflow of exactly that repository exchanging a token for the one-time audience makes the claim active and is answered as usual", async () => {
    const repository = newRepository();
    const audience = await pending(repository.full);
    const response = await exchange(await identityToken(repository, { aud: audience }));
    expect(response.status).toBe(200);
    const result = (await response.json()) as { org_id: string; repository: string; token: string };
    expect(result).toMatchObject({ org_id: orgId, repository: repository.full, token: expect.stringMatching(/^svc_eng_/) });
    expect(await liveClaims(repository.full)).toEqual([
      { org_id: orgId, proof: "repository", repository_id: repository.repositoryId, owner_id: repository.ownerId },
    ]);
    const listed = ((await (await call("/v1/oidc/bindings", { token: cli })).json()) as { bindings: Binding[] }).bindings;
    expect(listed.map((binding) => binding.repository)).toEqual([repository.full]);
    // Claiming again answers the active claim; the workflow's ordinary audience now works.
    expect((await postClaim(cli, repository.full)).status).toBe(201);
    expect((await exchange(await identityToken(repository))).status).toBe(200);
    // The audience was spent.
    expect(statusAndCode(await exchange(await identityToken(repository, { aud: audience })))).toEqual([403, "identity_not_bound"]);
    expect((await auditActions(orgId)).map((entry) => entry.action)).toEqual(["repository_claim.proof_requested", "repository_claim.created"]);
  });

  it("is not completed by a token for the audience from a different repository, nor by an expired audience", async () => {
    const repository = newRepository();
    const audience = await pending(repository.full);
    for (const elsewhere of [newRepository(), { ...newRepository(), full: `${repository.owner}/other` }]) {
      const response = await exchange(await identityToken(elsewhere, { aud: audience }));
      expect(statusAndCode(response)).toEqual([403, "identity_not_bound"]);
      expect(((await response.json()) as { reason: string }).reason).toBe("no_binding");
    }
    expect(await liveClaims(repository.full)).toEqual([]);

    await asRole("superuser", (client) =>
      client.query("UPDATE repository_claim_proofs SET expires_at = now() - interval '1 second' WHERE org_id = $1", [orgId]),
    );
    const expired = await exchange(await identityToken(repository, { aud: audience }));
    expect(statusAndCode(expired)).toEqual([403, "identity_not_bound"]);
    expect(((await expired.json()) as { error: string }).error).toMatch(/expired/);
    expect(await liveClaims(repository.full)).toEqual([]);
  });

  it("shows a fresh audience when claimed again while pending, and the earlier one no longer completes it", async () => {
    const repository = newRepository();
    const first = await pending(repository.full);
    const second = await pending(repository.full);
    expect(second).not.toBe(first);
    expect(statusAndCode(await exchange(await identityToken(repository, { aud: first })))).toEqual([403, "identity_not_bound"]);
    expect((await exchange(await identityToken(repository, { aud: second }))).status).toBe(200);
  });

  it("blocks nobody while pending: two organizations each hold one; the first completed wins and the other is refused", async () => {
    const repository = newRepository();
    const { other, otherCli } = await anotherOrganization();
    const ours = await pending(repository.full);
    const theirs = await pending(repository.full, otherCli);
    expect((await exchange(await identityToken(repository, { aud: theirs }))).status).toBe(200);
    expect((await liveClaims(repository.full)).map((row) => row.org_id)).toEqual([other]);
    expect(statusAndCode(await exchange(await identityToken(repository, { aud: ours })))).toEqual([403, "identity_not_bound"]);
    await expectRefusal(
      () => postClaim(cli, repository.full),
      { status: 409, code: "claim_held_elsewhere" },
      () => liveClaims(repository.full),
    );
  });
});

describe("claims made without proof before proof was required", () => {
  /** A claim as the CLI made it before: no proof, ids pinned by an earlier exchange. */
  const legacyClaim = (org: string, repository: TestRepository) =>
    asRole(
      "superuser",
      async (client) =>
        (
          await client.query(
            "INSERT INTO repository_claims (org_id, repository, source, repository_id, owner_id) VALUES ($1, $2, 'cli', $3, $4) RETURNING id",
            [org, repository.full, repository.repositoryId, repository.ownerId],
          )
        ).rows[0].id as string,
    );

  const unprovenEntries = (org: string) =>
    asRole(
      "superuser",
      async (client) => (await client.query("SELECT target, data FROM audit_log WHERE org_id = $1 AND action = 'repository_claim.unproven'", [org])).rows,
    );

  it("mints nothing, and is written to the audit log once however often its claims are read, the chain intact", async () => {
    const repository = newRepository();
    const id = await legacyClaim(orgId, repository);
    const refused = await exchange(await identityToken(repository));
    expect(statusAndCode(refused)).toEqual([403, "identity_not_bound"]);
    expect(((await refused.json()) as { error: string }).error).toMatch(/before claims needed proof/);

    const owner = await seedSession(await seedPerson(`owner-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]));
    const console = await rpcClient(owner);
    await Promise.all([call("/v1/oidc/bindings", { token: cli }), call("/v1/oidc/bindings", { token: cli }), console.claims.list.query({ orgId })]);
    const listed = await console.claims.list.query({ orgId });
    expect(listed.claims).toEqual([expect.objectContaining({ id, unproven: true })]);
    expect(await unprovenEntries(orgId)).toEqual([
      { target: id, data: { repository: repository.full, resolution: expect.stringMatching(/POST \/v1\/oidc\/bindings/) } },
    ]);
    expect(await console.audit.verify.query({ orgId })).toMatchObject({ intact: true });
  });

  it("is proven when its organization claims it again with proof: the same claim, now minting", async () => {
    const repository = newRepository();
    const id = await legacyClaim(orgId, repository);
    expect((await created(repository)).id).toBe(id);
    expect((await exchange(await identityToken(repository))).status).toBe(200);
    expect((await auditActions(orgId)).map((entry) => entry.action)).toEqual(["repository_claim.unproven", "repository_claim.proven"]);
  });

  it("gives way to another organization that proves control: revoked with its tokens, audited in its organization", async () => {
    const repository = newRepository();
    const { other, otherCli } = await anotherOrganization();
    const squatted = await legacyClaim(other, repository);
    const minted = await asRole(
      "superuser",
      async (client) =>
        (
          await client.query(
            "INSERT INTO tokens (org_id, kind, name, token_hash, display_prefix, expires_at, binding_id) VALUES ($1, 'engine', 'minted before', $2, 'svc_eng_', now() + interval '10 minutes', $3) RETURNING id",
            [other, crypto.randomUUID(), squatted],
          )
        ).rows[0].id as string,
    );
    const binding = await created(repository);
    expect(binding.id).not.toBe(squatted);
    expect((await liveClaims(repository.full)).map((row) => row.org_id)).toEqual([orgId]);
    expect(await auditActions(other)).toEqual([
      {
        action: "repository_claim.revoked",
        target: squatted,
        data: { repository: repository.full, tokensRevoked: 1, reason: "unproven claim gave way to a proven one" },
      },
    ]);
    const token = await asRole("superuser", async (client) => (await client.query("SELECT revoked_at FROM tokens WHERE id = $1", [minted])).rows[0]);
    expect(token.revoked_at).not.toBeNull();
    expect(((await (await exchange(await identityToken(repository))).json()) as { org_id: string }).org_id).toBe(orgId);
    await expectRefusal(
      () => claim(otherCli, repository),
      { status: 409, code: "claim_held_elsewhere" },
      () => liveClaims(repository.full),
    );
  });

  it("gives way to the only organization with a live App installation on the owner at the first exchange", async () => {
    const repository = newRepository();
    const { other } = await anotherOrganization();
    await legacyClaim(other, repository);
    const { orgId: installed } = await installApp(repository);
    const response = await exchange(await identityToken(repository));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { org_id: string }).org_id).toBe(installed);
  });
});
