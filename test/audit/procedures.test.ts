import { describe, expect, it } from "vitest";
import { rpcClient } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
import { asRole } from "../support/sql";

describe("audit procedures", () => {
  it("list entries newest first and verify the hash chain; an edited entry breaks it", async () => {
    const orgId = (await seedOrganization("audit")).id;
    const session = await seedSession(await seedPerson(`aud-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]));
    const client = await rpcClient(session);
    await client.organization.settings.mutate({ orgId, name: "First" });
    await client.organization.settings.mutate({ orgId, name: "Second" });
    const { items: entries } = await client.audit.list.query({ orgId });
    expect(entries.map((entry) => entry.action).slice(0, 2)).toEqual(["organization.renamed", "organization.renamed"]);
    expect(entries[0]!.data).toEqual({ from: "First", to: "Second" });
    const newest = await client.audit.list.query({ orgId, limit: 1 });
    expect(await client.audit.list.query({ orgId, limit: 1, cursor: newest.nextCursor! })).toMatchObject({ items: [{ seq: entries[1]!.seq }] });
    expect(await client.audit.verify.query({ orgId })).toEqual({
      entries: entries.length,
      intact: true,
      brokenAt: null,
      head: { seq: entries.length, hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      next: null,
    });

    await asRole("superuser", (sql) => sql.query('UPDATE audit_log SET data = \'{"from":"forged"}\' WHERE org_id = $1 AND seq = 2', [orgId]));
    expect(await client.audit.verify.query({ orgId })).toMatchObject({ intact: false, brokenAt: 2 });
  });

  it("verifies a long chain in bounded calls, each continuing from the hash the previous one checked", async () => {
    const orgId = (await seedOrganization("audit-paged")).id;
    const session = await seedSession(await seedPerson(`aup-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "owner" }]));
    const client = await rpcClient(session);
    for (const name of ["One", "Two", "Three", "Four"]) await client.organization.settings.mutate({ orgId, name });
    const total = (await client.audit.list.query({ orgId })).items.length;
    expect(total).toBeGreaterThanOrEqual(4);

    const first = await client.audit.verify.query({ orgId, limit: 2 });
    expect(first).toMatchObject({ entries: 2, intact: true, head: null, next: { seq: 2 } });
    let check = first;
    let checked = first.entries;
    while (check.next) {
      check = await client.audit.verify.query({ orgId, limit: 2, after: check.next });
      checked += check.entries;
    }
    expect(checked).toBe(total);
    expect(check).toMatchObject({ intact: true, head: { seq: total }, next: null });

    // A call continuing from a hash the chain does not hold finds the break at the next entry.
    expect(await client.audit.verify.query({ orgId, limit: 2, after: { seq: 2, hash: "0".repeat(64) } })).toMatchObject({ intact: false, brokenAt: 3 });
    // An entry edited beyond the first call's stretch is found by the call that reaches it.
    await asRole("superuser", (sql) => sql.query("UPDATE audit_log SET target = 'forged' WHERE org_id = $1 AND seq = 4", [orgId]));
    expect(await client.audit.verify.query({ orgId, limit: 2, after: first.next! })).toMatchObject({ intact: false, brokenAt: 4, next: null });
    // `after` is the chain's own shape: a malformed hash is refused, not trusted.
    await expect(client.audit.verify.query({ orgId, after: { seq: 1, hash: "abc" } })).rejects.toMatchObject({ data: { httpStatus: 400 } });
  });
});
