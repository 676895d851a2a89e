// POST /webhooks/codehost: signatures checked before anything else, each delivery handled once, and
// the installation rows kept true.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signWebhookBody } from "../../worker/codehost/webhook-signature";
import { deliver, installApp, installationPayload, newRepository, organizationOfInstallation, someInstallationId } from "../support/codehost";
import { callWith } from "../support/http";
import { seedOrganization } from "../support/seed";
import { asRole } from "../support/sql";

const account = () => {
  const { owner, ownerId } = newRepository("hook");
  return { login: owner, id: ownerId };
};

const installation = (installationId: number) =>
  asRole(
    "superuser",
    async (client) => (await client.query("SELECT * FROM installations WHERE codehost_installation_id = $1", [installationId])).rows[0] ?? null,
  );

const repositoriesOf = (installationId: number) =>
  asRole("superuser", async (client) =>
    (
      await client.query(
        `SELECT r.full_name FROM installation_repositories r JOIN installations i ON i.id = r.installation_id
       WHERE i.codehost_installation_id = $1 ORDER BY 1`,
        [installationId],
      )
    ).rows.map((row) => row.full_name as string),
  );

const repo = (full_name: string) => ({ id: Math.floor(Math.random() * 1e12) + 1, full_name });

describe("signatures", () => {
  const created = () => installationPayload("created", someInstallationId(), account());

  it("answers 401, changing nothing, to a missing signature, a malformed header, a wrong length or a wrong signature", async () => {
    const payload = created();
    const body = JSON.stringify(payload);
    const signatures: Array<string | null> = [
      null,
      "",
      "sha1=" + "a".repeat(40),
      "sha256=" + "z".repeat(64),
      "sha256=" + "a".repeat(63),
      "sha256=" + "a".repeat(66),
      "sha256=" + "a".repeat(64),
    ];
    for (const signature of signatures) {
      const response = await deliver("installation", payload, { signature, body });
      expect(response.status, String(signature)).toBe(401);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    }
    const wrongSecret = await deliver("installation", payload, { secret: "not-the-secret" });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.headers.get("x-svc-error-code")).toBe("signature_invalid");
    expect(await installation(payload.installation.id)).toBeNull();
  });

  it("answers 401 when the body was changed after signing", async () => {
    const payload = created();
    const signature = await signWebhookBody(env.SVC_CODEHOST_APP_WEBHOOK_SECRET!, JSON.stringify(payload));
    const response = await deliver("installation", payload, { signature, body: JSON.stringify({ ...payload, action: "deleted" }) });
    expect(response.status).toBe(401);
  });

  it("answers 503 when no App (so no webhook secret) is configured", async () => {
    const response = await callWith(
      { SVC_CODEHOST_APP_ID: undefined, SVC_CODEHOST_APP_PRIVATE_KEY: undefined, SVC_CODEHOST_APP_WEBHOOK_SECRET: undefined },
      "/webhooks/codehost",
      { method: "POST", body: "{}", headers: { "content-type": "application/json", "x-hub-signature-256": "sha256=" + "a".repeat(64) } },
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: expect.any(String) });
  });

  it("answers 400 to a signed delivery without its id or event, or with a body that is not JSON", async () => {
    expect((await deliver("installation", created(), { delivery: "" })).status).toBe(400);
    expect((await deliver("", created())).status).toBe(400);
    expect((await deliver("installation", null, { body: "{not json" })).status).toBe(400);
  });

  it("answers 413 to a body over 5 MiB, before checking its signature", async () => {
    const response = await deliver("installation", null, { body: JSON.stringify({ pad: "x".repeat(5 * 1024 * 1024) }), signature: "sha256=" + "0".repeat(64) });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/5 MiB/) });
  });
});

describe("deliveries this service cannot take", () => {
  const outcomeOf = (delivery: string) =>
    asRole(
      "superuser",
      async (client) => (await client.query("SELECT outcome FROM codehost_deliveries WHERE delivery_id = $1", [delivery])).rows[0]?.outcome ?? null,
    );

  it("refuses a payload of the wrong shape, records it as refused, and answers its redelivery as a duplicate", async () => {
    const delivery = crypto.randomUUID();
    const first = await deliver("installation", { action: "created", installation: { id: "x" } }, { delivery });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ delivery, outcome: "refused", reason: expect.stringMatching(/installation\.id/) });
    expect(await outcomeOf(delivery)).toBe("refused");
    expect(await (await deliver("installation", { action: "created", installation: { id: "x" } }, { delivery })).json()).toEqual({
      delivery,
      outcome: "duplicate",
    });
  });

  it("refuses an account login holding a NUL character: no 500, nothing created, recorded as refused", async () => {
    const delivery = crypto.randomUUID();
    const installationId = someInstallationId();
    const { id } = account();
    const response = await deliver("installation", installationPayload("created", installationId, { login: "evil\u0000corp", id }), { delivery });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ delivery, outcome: "refused", reason: expect.stringMatching(/installation\.account\.login.*NUL/) });
    expect(await installation(installationId)).toBeNull();
    expect(await outcomeOf(delivery)).toBe("refused");
  });

  it("refuses a repository name holding a lone surrogate the same way", async () => {
    const delivery = crypto.randomUUID();
    const installationId = someInstallationId();
    const response = await deliver("installation", installationPayload("created", installationId, account(), { repositories: [repo("owner/na\udfffme")] }), {
      delivery,
    });
    expect(await response.json()).toMatchObject({ delivery, outcome: "refused" });
    expect(await installation(installationId)).toBeNull();
  });

  it("records what became of the deliveries it took", async () => {
    const delivery = crypto.randomUUID();
    await deliver("installation", installationPayload("created", someInstallationId(), account()), { delivery });
    expect(await outcomeOf(delivery)).toBe("applied");
    const unknown = crypto.randomUUID();
    expect(await (await deliver("installation", installationPayload("deleted", someInstallationId(), account()), { delivery: unknown })).json()).toMatchObject({
      outcome: "ignored",
    });
    expect(await outcomeOf(unknown)).toBe("ignored");
  });
});

describe("each delivery is handled once", () => {
  it("acknowledges a redelivery and does nothing with it", async () => {
    const who = account();
    const installationId = someInstallationId();
    await deliver("installation", installationPayload("created", installationId, who));
    const suspend = crypto.randomUUID();
    expect(await (await deliver("installation", installationPayload("suspend", installationId, who), { delivery: suspend })).json()).toEqual({
      delivery: suspend,
      outcome: "applied",
    });
    await deliver("installation", installationPayload("unsuspend", installationId, who));
    const again = await deliver("installation", installationPayload("suspend", installationId, who), { delivery: suspend });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ delivery: suspend, outcome: "duplicate" });
    expect((await installation(installationId)).suspended_at).toBeNull();
  });

  it("answers a captured delivery replayed under a new delivery id as a duplicate, changing nothing", async () => {
    const who = account();
    const installationId = someInstallationId();
    await deliver("installation", installationPayload("created", installationId, who));
    const body = JSON.stringify(installationPayload("suspend", installationId, who));
    const signature = await signWebhookBody(env.SVC_CODEHOST_APP_WEBHOOK_SECRET!, body);
    expect(await (await deliver("installation", null, { body, signature })).json()).toMatchObject({ outcome: "applied" });
    await deliver("installation", installationPayload("unsuspend", installationId, who));
    const before = await installation(installationId);
    expect(before.suspended_at).toBeNull();

    const replay = crypto.randomUUID();
    const response = await deliver("installation", null, { body, signature, delivery: replay });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ delivery: replay, outcome: "duplicate" });
    expect(await installation(installationId)).toEqual(before);
    const recorded = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT 1 FROM codehost_deliveries WHERE delivery_id = $1", [replay])).rowCount,
    );
    expect(recorded).toBe(0);
  });

  it("applies concurrent copies of one delivery once", async () => {
    const payload = installationPayload("created", someInstallationId(), account(), { repositories: [repo("x/one")] });
    const delivery = crypto.randomUUID();
    const responses = await Promise.all([1, 2, 3, 4].map(() => deliver("installation", payload, { delivery })));
    const outcomes = await Promise.all(responses.map(async (response) => ((await response.json()) as { outcome: string }).outcome));
    expect(outcomes.sort()).toEqual(["applied", "duplicate", "duplicate", "duplicate"]);
    const audit = await asRole(
      "superuser",
      async (client) =>
        (
          await client.query("SELECT count(*)::int AS n FROM audit_log WHERE action = 'installation.created' AND target = $1", [
            String(payload.installation.id),
          ])
        ).rows[0].n,
    );
    expect(audit).toBe(1);
  });

  it("acknowledges events it does not act on, once", async () => {
    const delivery = crypto.randomUUID();
    expect(await (await deliver("ping", { zen: "Keep it logically awesome." }, { delivery })).json()).toEqual({ delivery, outcome: "ignored" });
    expect(await (await deliver("ping", { zen: "Keep it logically awesome." }, { delivery })).json()).toEqual({ delivery, outcome: "duplicate" });
    const permissions = await deliver("installation", installationPayload("new_permissions_accepted", someInstallationId(), account()));
    expect(await permissions.json()).toMatchObject({ outcome: "ignored" });
  });
});

describe("installation deliveries keep the installation rows true", () => {
  it("created on an account with no organization: creates it (slug from the login, lower-cased, no members) with the installation and its repositories", async () => {
    const who = { ...account(), login: `Hook-${crypto.randomUUID().slice(0, 8)}` };
    const installationId = someInstallationId();
    const response = await deliver(
      "installation",
      installationPayload("created", installationId, who, { repositories: [repo(`${who.login}/a`), repo(`${who.login}/b`)] }),
    );
    expect(await response.json()).toMatchObject({ outcome: "applied" });
    const orgId = await organizationOfInstallation(installationId);
    const org = await asRole("superuser", async (client) => ({
      row: (await client.query("SELECT slug, name FROM organizations WHERE id = $1", [orgId])).rows[0],
      members: (await client.query("SELECT count(*)::int AS n FROM memberships WHERE org_id = $1", [orgId])).rows[0].n,
      audit: (await client.query("SELECT action FROM audit_log WHERE org_id = $1 ORDER BY seq", [orgId])).rows.map((row) => row.action),
    }));
    expect(org).toEqual({
      row: { slug: who.login.toLowerCase(), name: who.login },
      members: 0,
      audit: ["organization.created", "installation.created"],
    });
    expect(await installation(installationId)).toMatchObject({ account_login: who.login, account_id: who.id, suspended_at: null, deleted_at: null });
    expect(await repositoriesOf(installationId)).toEqual([`${who.login}/a`, `${who.login}/b`]);
  });

  it("gives a new organization the login followed by the account id when the slug is taken", async () => {
    const taken = await seedOrganization("taken");
    const who = { login: taken.slug, id: String(Math.floor(Math.random() * 1e9) + 1) };
    const installationId = someInstallationId();
    await deliver("installation", installationPayload("created", installationId, who));
    const orgId = await organizationOfInstallation(installationId);
    expect(orgId).not.toBe(taken.id);
    const slug = await asRole("superuser", async (client) => (await client.query("SELECT slug FROM organizations WHERE id = $1", [orgId])).rows[0].slug);
    expect(slug).toBe(`${taken.slug}-${who.id}`);
  });

  it("puts a reinstall on the same account into the organization of the first installation", async () => {
    const repository = newRepository("again");
    const first = await installApp(repository);
    await deliver("installation", installationPayload("deleted", first.installationId, { login: repository.owner, id: repository.ownerId }));
    const second = await installApp(repository);
    expect(second.orgId).toBe(first.orgId);
  });

  it("suspend and unsuspend set and clear the suspension", async () => {
    const who = account();
    const installationId = someInstallationId();
    await deliver("installation", installationPayload("created", installationId, who));
    await deliver("installation", installationPayload("suspend", installationId, who));
    expect((await installation(installationId)).suspended_at).not.toBeNull();
    await deliver("installation", installationPayload("unsuspend", installationId, who));
    expect((await installation(installationId)).suspended_at).toBeNull();
  });

  it("deleted marks the installation uninstalled and clears its repositories; an unknown one is ignored", async () => {
    const who = account();
    const installationId = someInstallationId();
    await deliver("installation", installationPayload("created", installationId, who, { repositories: [repo(`${who.login}/a`)] }));
    await deliver("installation", installationPayload("deleted", installationId, who));
    expect((await installation(installationId)).deleted_at).not.toBeNull();
    expect(await repositoriesOf(installationId)).toEqual([]);
    const unknown = await deliver("installation", installationPayload("deleted", someInstallationId(), account()));
    expect(await unknown.json()).toMatchObject({ outcome: "ignored" });
  });

  it("installation_repositories added and removed change the covered repositories", async () => {
    const who = account();
    const installationId = someInstallationId();
    const [a, b, c] = [repo(`${who.login}/a`), repo(`${who.login}/b`), repo(`${who.login}/c`)];
    await deliver("installation", installationPayload("created", installationId, who, { repositories: [a] }));
    await deliver("installation_repositories", installationPayload("added", installationId, who, { repositories_added: [b, c], repositories_removed: [] }));
    expect(await repositoriesOf(installationId)).toEqual([a!.full_name, b!.full_name, c!.full_name]);
    await deliver("installation_repositories", installationPayload("removed", installationId, who, { repositories_added: [], repositories_removed: [a, c] }));
    expect(await repositoriesOf(installationId)).toEqual([b!.full_name]);
  });

  it("a delivery about an installation never seen creates it", async () => {
    const who = account();
    const installationId = someInstallationId();
    await deliver("installation", installationPayload("suspend", installationId, who));
    expect((await installation(installationId)).suspended_at).not.toBeNull();
  });
});
