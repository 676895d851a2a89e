// POST /v1/auth/codehost-oidc: every refusal reason, the claim rules, and the engine token it mints.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EXCHANGE_RATE_LIMIT, exchangeLimiterName } from "../../worker/codehost/workflow-identity";
import { APP_BASE_URL } from "../setup/bindings";
import {
  claim,
  deliver,
  exchange,
  identityToken,
  installApp,
  installationPayload,
  newRepository,
  type ExchangeResult,
  type TestRepository,
} from "../support/codehost";
import { makeEvent, postEvents } from "../support/events";
import { call, callWith } from "../support/http";
import { seedOrganization, seedToken } from "../support/seed";
import { asRole, asTenant } from "../support/sql";
import { captureLogs } from "../support/logs";

const now = () => Math.floor(Date.now() / 1000);

async function refusal(response: Response) {
  return { status: response.status, code: response.headers.get("x-svc-error-code"), body: (await response.json()) as { error: string; reason: string } };
}

/** An organization with a CLI token that manages tokens, and a claim on `repository`. */
async function claimedBy(repository: TestRepository) {
  const orgId = (await seedOrganization("oidc")).id;
  const cli = (await seedToken(orgId, "cli", ["tokens.manage"])).token;
  const response = await claim(cli, repository);
  expect(response.status).toBe(201);
  return { orgId, cli, bindingId: ((await response.json()) as { id: string }).id };
}

async function exchanged(repository: TestRepository, claims: Record<string, unknown> = {}): Promise<ExchangeResult> {
  const response = await exchange(await identityToken(repository, claims));
  expect(response.status).toBe(200);
  return (await response.json()) as ExchangeResult;
}

const claimRow = (bindingId: string) =>
  asRole("superuser", async (client) => (await client.query("SELECT * FROM repository_claims WHERE id = $1", [bindingId])).rows[0]);

describe("tokens that do not verify answer 401 with a reason", () => {
  const cases: Array<[string, (repository: TestRepository) => Promise<unknown>, string]> = [
    ["not a token at all", async () => "not-a-token", "malformed"],
    ["three parts of nonsense", async () => "a.b.c", "malformed"],
    ["signed with RS384", (r) => identityToken(r, {}, { variant: "rs384" }), "bad_algorithm"],
    ["signed with HS256", (r) => identityToken(r, {}, { variant: "hs256" }), "bad_algorithm"],
    ["not signed (alg none)", (r) => identityToken(r, {}, { variant: "none" }), "bad_algorithm"],
    ["naming a key the issuer does not publish", (r) => identityToken(r, {}, { variant: "unknown_kid" }), "no_key"],
    ["naming no key", (r) => identityToken(r, {}, { variant: "no_kid" }), "no_key"],
    ["signed by another key under the issuer's key id", (r) => identityToken(r, {}, { variant: "wrong_key" }), "invalid_signature"],
    ["from another issuer", (r) => identityToken(r, { iss: "https://token.actions.githubusercontent.com" }), "wrong_issuer"],
    ["naming no issuer", (r) => identityToken(r, { iss: null }), "wrong_issuer"],
    ["for another audience", (r) => identityToken(r, { aud: "https://elsewhere.example" }), "wrong_audience"],
    ["for no audience", (r) => identityToken(r, { aud: null }), "wrong_audience"],
    ["expired", (r) => identityToken(r, { iat: now() - 900, nbf: now() - 900, exp: now() - 120 }), "expired"],
    ["not valid yet", (r) => identityToken(r, { nbf: now() + 120, exp: now() + 600 }), "not_yet_valid"],
    ["without an expiry", (r) => identityToken(r, { exp: null }), "malformed"],
    ["without an id (jti)", (r) => identityToken(r, { jti: null }), "malformed"],
    ["naming no repository", (r) => identityToken(r, { repository: null }), "no_repository"],
    ["naming no repository id", (r) => identityToken(r, { repository_id: null }), "no_repository"],
    ["naming no owner id", (r) => identityToken(r, { repository_owner_id: null }), "no_repository"],
    ["naming an owner id past the database's range", (r) => identityToken(r, { repository_owner_id: "9223372036854775808" }), "no_repository"],
    ["naming a repository id of twenty digits", (r) => identityToken(r, { repository_id: "12345678901234567890" }), "no_repository"],
  ];

  for (const [name, token, reason] of cases) {
    it(`refuses a token ${name} as ${reason}`, async () => {
      const repository = newRepository();
      await claimedBy(repository);
      const answer = await refusal(await exchange(await token(repository)));
      expect(answer).toEqual({ status: 401, code: "identity_unverified", body: { error: expect.stringMatching(/^[A-Z].+\.$/), reason } });
    });
  }

  it("names the audience to request when the audience is wrong", async () => {
    const repository = newRepository();
    const { body } = await refusal(await exchange(await identityToken(repository, { aud: "https://elsewhere.example" })));
    expect(body.error).toContain(APP_BASE_URL);
  });

  it("answers keys_unavailable when the issuer's keys cannot be fetched", async () => {
    const repository = newRepository();
    // A code host nobody answers for: the token names its issuer, whose keys cannot be fetched.
    const unreachable = "http://127.0.0.1:1";
    const token = await identityToken(repository, { iss: `${unreachable}/_services/token` });
    let response!: Response;
    // The operator is told which key set could not be fetched: read here rather than printed.
    const logs = await captureLogs(async () => {
      response = await callWith({ SVC_CODEHOST_API_BASE: unreachable }, "/v1/auth/codehost-oidc", { method: "POST", json: { token } });
    });
    expect(await refusal(response)).toMatchObject({ status: 401, body: { reason: "keys_unavailable" } });
    expect(logs.event("codehost.keys_unavailable")).toMatchObject({ level: "warn", url: `${unreachable}/_services/token/.well-known/jwks` });
  });
});

describe("requests that are not an exchange answer 400", () => {
  it("refuses a body that is not JSON, has no token, or a token that is not text", async () => {
    const notJson = await call("/v1/auth/codehost-oidc", { method: "POST", body: "{token", headers: { "content-type": "application/json" } });
    expect(notJson.status).toBe(400);
    for (const json of [{}, { token: "" }, { token: 5 }, ["x"]]) {
      const response = await call("/v1/auth/codehost-oidc", { method: "POST", json });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: expect.stringMatching(/token|body/) });
    }
  });
});

describe("a claimed repository's token is exchanged for an engine token", () => {
  it("answers 200 with exactly token, expires_at (15 minutes), org_id and repository; the token works on POST /v1/events", async () => {
    const repository = newRepository();
    const { orgId, bindingId } = await claimedBy(repository);
    const before = Date.now();
    const result = await exchanged(repository);
    expect(Object.keys(result).sort()).toEqual(["expires_at", "org_id", "repository", "token"]);
    expect(result).toMatchObject({ org_id: orgId, repository: repository.full, token: expect.stringMatching(/^svc_eng_/) });
    const lifetime = Date.parse(result.expires_at) - before;
    expect(lifetime).toBeGreaterThan(14 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000 + 5_000);
    expect((await postEvents(result.token, [makeEvent()])).status).toBe(202);

    const stored = await asRole("superuser", async (client) => (await client.query("SELECT * FROM tokens WHERE binding_id = $1", [bindingId])).rows);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ org_id: orgId, kind: "engine" });
    expect(Math.abs(new Date(stored[0].expires_at).getTime() - Date.parse(result.expires_at))).toBeLessThan(1000);
    expect(JSON.stringify(stored)).not.toContain(result.token);
  });

  it("records the claim's use in lastUsedAt", async () => {
    const repository = newRepository();
    const { cli } = await claimedBy(repository);
    const list = async () => ((await (await call("/v1/oidc/bindings", { token: cli })).json()) as { bindings: Array<{ lastUsedAt: string | null }> }).bindings;
    expect((await list())[0]!.lastUsedAt).toBeNull();
    const before = Date.now();
    await exchanged(repository);
    const lastUsedAt = Date.parse((await list())[0]!.lastUsedAt!);
    expect(lastUsedAt).toBeGreaterThanOrEqual(before - 2000);
  });

  it("compares repository names without regard to case", async () => {
    const repository = newRepository("Mixed");
    await claimedBy({ ...repository, full: repository.full.toUpperCase() });
    const result = await exchanged({ ...repository, full: repository.full.toLowerCase() });
    expect(result.repository).toBe(repository.full.toLowerCase());
  });

  it("refuses a token exchanged before (a replayed jti)", async () => {
    const repository = newRepository();
    await claimedBy(repository);
    const token = await identityToken(repository);
    expect((await exchange(token)).status).toBe(200);
    const again = await refusal(await exchange(token));
    expect(again).toMatchObject({ status: 401, body: { reason: "expired", error: expect.stringMatching(/already exchanged/) } });
  });

  it("answers 429 with Retry-After once the repository's exchanges are spent", async () => {
    const repository = newRepository();
    await claimedBy(repository);
    const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(exchangeLimiterName(repository.full)));
    expect((await limiter.take(EXCHANGE_RATE_LIMIT.capacity, EXCHANGE_RATE_LIMIT)).ok).toBe(true);
    const response = await exchange(await identityToken(repository));
    expect(response.status).toBe(429);
    const body = (await response.json()) as { error: string; retryAfterSeconds: number };
    expect(body.retryAfterSeconds).toBeGreaterThan(0);
    expect(response.headers.get("retry-after")).toBe(String(body.retryAfterSeconds));
    // Another repository is not held back.
    const other = newRepository();
    await claimedBy(other);
    expect((await exchange(await identityToken(other))).status).toBe(200);
  });
});

describe("the claim pins the repository's and owner's ids", () => {
  it("pins the ids its proof read at the code host, then refuses a recreated repository", async () => {
    const repository = newRepository();
    const { bindingId } = await claimedBy(repository);
    expect(await claimRow(bindingId)).toMatchObject({ repository_id: repository.repositoryId, owner_id: repository.ownerId, proof: "installation" });
    await exchanged(repository);

    const recreated = await refusal(await exchange(await identityToken({ ...repository, repositoryId: "999999999999" })));
    expect(recreated).toMatchObject({ status: 403, code: "identity_not_bound", body: { reason: "no_binding" } });
    const newOwner = await refusal(await exchange(await identityToken({ ...repository, ownerId: "888888888888" })));
    expect(newOwner).toMatchObject({ status: 403, body: { reason: "no_binding" } });
  });
});

describe("with no claim, the owner's App installation decides", () => {
  it("creates the claim from the only organization with a live installation, recorded as from it, ids pinned", async () => {
    const repository = newRepository();
    const { orgId, installationId } = await installApp(repository);
    const result = await exchanged(repository);
    expect(result.org_id).toBe(orgId);
    const rows = await asRole(
      "superuser",
      async (client) =>
        (
          await client.query(
            `SELECT c.source, c.repository_id, c.owner_id, i.codehost_installation_id FROM repository_claims c
         JOIN installations i ON i.id = c.installation_id WHERE c.org_id = $1`,
            [orgId],
          )
        ).rows,
    );
    expect(rows).toEqual([
      { source: "installation", repository_id: repository.repositoryId, owner_id: repository.ownerId, codehost_installation_id: String(installationId) },
    ]);
    const audit = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT actor_label FROM audit_log WHERE org_id = $1 AND action = 'repository_claim.created'", [orgId])).rows,
    );
    expect(audit).toEqual([{ actor_label: `code-host App installation ${installationId}` }]);
  });

  it("matches the owner's login without regard to case", async () => {
    const repository = newRepository("Upper");
    await installApp({ ...repository, owner: repository.owner.toUpperCase() });
    expect((await exchanged({ ...repository, full: repository.full.toLowerCase(), owner: repository.owner.toLowerCase() })).repository).toBe(
      repository.full.toLowerCase(),
    );
  });

  it("creates one claim when first exchanges race", async () => {
    const repository = newRepository();
    const { orgId } = await installApp(repository);
    const responses = await Promise.all([1, 2, 3].map(async () => exchange(await identityToken(repository))));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    const claims = await asRole("superuser", async (client) => (await client.query("SELECT id FROM repository_claims WHERE org_id = $1", [orgId])).rows);
    expect(claims).toHaveLength(1);
  });

  it("refuses with no_binding when nobody claimed the repository and nobody installed the App on its owner", async () => {
    const answer = await refusal(await exchange(await identityToken(newRepository())));
    expect(answer).toMatchObject({ status: 403, code: "identity_not_bound", body: { reason: "no_binding", error: expect.stringMatching(/claim/) } });
  });

  it("refuses with no_binding when two organizations hold a live installation on the owner", async () => {
    const repository = newRepository();
    await installApp(repository);
    // A second organization's installation on the same account: state the webhooks never produce.
    const other = (await seedOrganization("twice")).id;
    await asTenant(other, async (client) => {
      await client.query("INSERT INTO installations (org_id, codehost_installation_id, account_login, account_id) VALUES ($1, $2, $3, $4)", [
        other,
        Math.floor(Math.random() * 1e12),
        repository.owner,
        repository.ownerId,
      ]);
      await client.query("COMMIT");
    });
    const answer = await refusal(await exchange(await identityToken(repository)));
    expect(answer).toMatchObject({ status: 403, body: { reason: "no_binding", error: expect.stringMatching(/More than one organization/) } });
    expect(
      await asRole(
        "superuser",
        async (client) =>
          (await client.query("SELECT count(*)::int AS n FROM repository_claims WHERE repository_key = lower($1)", [repository.full])).rows[0].n,
      ),
    ).toBe(0);
  });

  it("does not count an installation on another account that had the same login", async () => {
    const repository = newRepository();
    await installApp({ ...repository, ownerId: "777777777777" });
    expect(await refusal(await exchange(await identityToken(repository)))).toMatchObject({ status: 403, body: { reason: "no_binding" } });
  });

  it("refuses with installation_suspended when the only installation is suspended, and again when a claim's installation is", async () => {
    const repository = newRepository();
    const { installationId } = await installApp(repository);
    const account = { login: repository.owner, id: repository.ownerId };
    await deliver("installation", installationPayload("suspend", installationId, account));
    expect(await refusal(await exchange(await identityToken(repository)))).toMatchObject({ status: 403, body: { reason: "installation_suspended" } });

    await deliver("installation", installationPayload("unsuspend", installationId, account));
    await exchanged(repository);
    // Suspended again: a new delivery with its own body (the same body again would be a replay).
    await deliver("installation", installationPayload("suspend", installationId, account, { again: true }));
    expect(await refusal(await exchange(await identityToken(repository)))).toMatchObject({ status: 403, body: { reason: "installation_suspended" } });
  });
});

describe("revoking the claim", () => {
  it("refuses further exchanges with binding_revoked and kills the tokens already minted", async () => {
    const repository = newRepository();
    const { cli, bindingId } = await claimedBy(repository);
    const minted = await exchanged(repository);
    const revoked = await call(`/v1/oidc/bindings/${bindingId}`, { method: "DELETE", token: cli });
    expect(await revoked.json()).toMatchObject({ revoked: true, tokensRevoked: 1 });
    expect((await postEvents(minted.token, [makeEvent()])).status).toBe(401);
    expect(await refusal(await exchange(await identityToken(repository)))).toMatchObject({ status: 403, body: { reason: "binding_revoked" } });
  });

  it("does not recreate a revoked claim from the installation", async () => {
    const repository = newRepository();
    const { orgId } = await installApp(repository);
    await exchanged(repository);
    const cli = (await seedToken(orgId, "cli", ["tokens.manage"])).token;
    expect((await call(`/v1/oidc/bindings/${repository.full.replace("/", "%2F")}`, { method: "DELETE", token: cli })).status).toBe(200);
    expect(await refusal(await exchange(await identityToken(repository)))).toMatchObject({ status: 403, body: { reason: "binding_revoked" } });
  });

  it("kills a minted token even if only the claim row says it is revoked", async () => {
    const repository = newRepository();
    const { bindingId } = await claimedBy(repository);
    const minted = await exchanged(repository);
    await asRole("superuser", (client) => client.query("UPDATE repository_claims SET revoked_at = now() WHERE id = $1", [bindingId]));
    expect((await postEvents(minted.token, [makeEvent()])).status).toBe(401);
  });
});
