// tokens.*: engine tokens created and shown once, listed without values or hashes, revoked; another
// organization's answered like a missing one.
import { beforeEach, describe, expect, it } from "vitest";
import { makeEvent, postEvents } from "../support/events";
import { expectRefusal } from "../support/refusals";
import { rpcClient } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";

let orgId: string;
let adminSession: string;

beforeEach(async () => {
  orgId = (await seedOrganization("st")).id;
  adminSession = await seedSession(await seedPerson(`adm-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "admin" }]));
});

describe("tokens procedures", () => {
  it("create an engine token shown once, list without values or hashes, revoke (idempotent)", async () => {
    const client = await rpcClient(adminSession);
    const created = await client.tokens.create.mutate({ orgId, name: "preview runner" });
    expect(created.token).toMatch(/^svc_eng_/);
    expect((await postEvents(created.token, [makeEvent()])).status).toBe(202);

    const { items: listed } = await client.tokens.list.query({ orgId });
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect(listed.find((token) => token.id === created.id)).toMatchObject({ name: "preview runner", kind: "engine", revokedAt: null });
    // Newest first, a page at a time.
    const again = await client.tokens.create.mutate({ orgId, name: "second runner" });
    const newest = await client.tokens.list.query({ orgId, limit: 1 });
    expect(newest.items.map((token) => token.id)).toEqual([again.id]);
    expect((await client.tokens.list.query({ orgId, limit: 1, cursor: newest.nextCursor! })).items.map((token) => token.id)).toEqual([created.id]);

    expect(await client.tokens.revoke.mutate({ orgId, tokenId: created.id })).toEqual({ revoked: true, alreadyRevoked: false });
    expect(await client.tokens.revoke.mutate({ orgId, tokenId: created.id })).toEqual({ revoked: true, alreadyRevoked: true });
    expect((await postEvents(created.token, [makeEvent()])).status).toBe(401);
  });

  it("answers another organization's token like a missing one", async () => {
    const other = (await seedOrganization("st-other")).id;
    const otherAdmin = await seedSession(await seedPerson(`oa-${crypto.randomUUID().slice(0, 6)}`, [{ orgId: other, role: "admin" }]));
    const theirs = await (await rpcClient(otherAdmin)).tokens.create.mutate({ orgId: other, name: "theirs" });
    const client = await rpcClient(adminSession);
    const theirList = async () => (await (await rpcClient(otherAdmin)).tokens.list.query({ orgId: other })).items;
    await expectRefusal(() => client.tokens.revoke.mutate({ orgId, tokenId: theirs.id }), { status: 404, code: "not_found" }, theirList);
  });
});
