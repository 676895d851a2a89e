// The data export document on an organization with every kind of record this service keeps: valid
// against its published schema, references by name, no token value, nothing of another organization.
import { describe, expect, it } from "vitest";
import { exportOf } from "../support/exports";
import { PAGE } from "../../worker/exports/document";
import { claim } from "../support/codehost";
import { call } from "../support/http";
import { newEnvId, reportEnvironment, workplace } from "../support/engine-work";
import { rpcClient } from "../support/rpc";
import { seedToken } from "../support/seed";
import { asRole } from "../support/sql";
import { seedRun } from "../support/workloads";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe("the data export document", () => {
  it("holds every member the spec lists, by name, and validates against its schema", async () => {
    const place = await workplace("data-export");
    const other = await workplace("data-export-other");
    const owner = await rpcClient(place.sessions.owner);
    await owner.invitations.create.mutate({ orgId: place.orgId, email: `exported-${crypto.randomUUID().slice(0, 6)}@example.com`, role: "viewer" });
    const cli = await seedToken(place.orgId, "cli", ["tokens.manage"]);
    expect((await claim(cli.token, place.repository)).status).toBe(201);
    const engineToken = await owner.tokens.create.mutate({ orgId: place.orgId, name: "exported engine" });
    const envId = newEnvId();
    await reportEnvironment(place, envId, { branch: "main", preview_urls: ["https://preview.example.com"] });
    await seedRun(place.orgId, envId);
    await asRole("superuser", (client) =>
      client.query("INSERT INTO billing_history (org_id, source, from_plan, to_plan, note) VALUES ($1, 'operator', 'free', 'team', 'set on the console')", [
        place.orgId,
      ]),
    );
    await reportEnvironment(other, newEnvId());

    const document = await exportOf(place.orgId);
    expect(document.people.map((person) => person.role).sort()).toEqual(["admin", "admin", "member", "owner", "viewer"]);
    expect(document.invitations).toHaveLength(1);
    expect(document.repositories).toEqual(expect.arrayContaining([expect.objectContaining({ repository: place.repository.full, via: "claim" })]));
    expect(document.environments).toEqual([
      expect.objectContaining({ envId, repository: place.repository.full, previewUrls: ["https://preview.example.com"] }),
    ]);
    expect(document.workloads).toHaveLength(1);
    expect(document.workloadRuns).toEqual([expect.objectContaining({ envId, state: "requested" })]);
    expect(document.credentials).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "engine token", name: "exported engine" }),
        expect.objectContaining({ kind: "cli token", scopes: ["tokens.manage"] }),
        expect.objectContaining({ kind: "repository claim", name: place.repository.full }),
      ]),
    );
    expect(document.billingHistory).toEqual([expect.objectContaining({ from: "free", to: "team", source: "operator" })]);
    expect(document.auditLog.length).toBeGreaterThan(3);
    expect(document.notIncluded.map((entry) => entry.what)).toEqual(expect.arrayContaining(["engine token values", "provider key material"]));
    for (const member of ["maskingRules", "egressPolicy"] as const) expect(document[member]).toEqual([]);

    // References by name; never a token value; nothing of the other organization.
    const { auditLog, ...named } = document;
    expect(JSON.stringify(named)).not.toMatch(UUID);
    const text = JSON.stringify(document);
    expect(text).not.toContain(engineToken.token);
    expect(text).not.toContain(cli.token);
    expect(text).not.toContain(other.repository.full);
    expect(auditLog.every((entry) => /^[0-9a-f]{64}$/.test(entry.hash))).toBe(true);
  });

  it("pages through long members without losing or repeating a row", async () => {
    const place = await workplace("data-export-long");
    const count = PAGE * 2 + 7;
    await asRole("superuser", (client) =>
      client.query(
        `INSERT INTO environments (org_id, env_id, repository, state, last_event_at)
         SELECT $1, 'bulk-' || lpad(n::text, 5, '0'), $2, 'ready', now() FROM generate_series(1, $3) n`,
        [place.orgId, place.repository.full, count],
      ),
    );
    const document = await exportOf(place.orgId);
    const ids = document.environments.map((environment) => environment.envId);
    expect(ids).toHaveLength(count);
    expect(new Set(ids).size).toBe(count);
  });
});

describe("the published schema", () => {
  it("is the DataExport component of /openapi.json", async () => {
    const document = (await (await call("/openapi.json")).json()) as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    expect(Object.keys(document.components.schemas.DataExport!.properties!)).toEqual(expect.arrayContaining(["people", "auditLog", "files", "notIncluded"]));
  });
});
