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
    });

    await asRole("superuser", (sql) => sql.query('UPDATE audit_log SET data = \'{"from":"forged"}\' WHERE org_id = $1 AND seq = 2', [orgId]));
    expect(await client.audit.verify.query({ orgId })).toMatchObject({ intact: false, brokenAt: 2 });
  });
});
