// claims.list / claims.revoke: what the console shows of repository claims, another organization's
// answered like a missing one.
import { beforeEach, describe, expect, it } from "vitest";
import { claim as claimRepository } from "../support/codehost";
import { workplace, type Workplace } from "../support/engine-work";
import { expectRefusal } from "../support/refusals";
import { rpcClient } from "../support/rpc";
import { seedToken } from "../support/seed";
import { asRole } from "../support/sql";

let place: Workplace;

beforeEach(async () => {
  place = await workplace("console-lists");
});

describe("claims", () => {
  it("lists the organization's claims with the audience, and revokes one: its minted tokens die, audited once", async () => {
    const cli = (await seedToken(place.orgId, "cli", ["tokens.manage"])).token;
    const created = (await (await claimRepository(cli, place.repository)).json()) as { id: string };
    const owner = await rpcClient(place.sessions.owner);
    const listed = await owner.claims.list.query({ orgId: place.orgId });
    expect(listed.audience).toMatch(/^https?:\/\//);
    expect(listed.claims).toEqual([expect.objectContaining({ id: created.id, repository: place.repository.full, revokedAt: null })]);

    expect(await owner.claims.revoke.mutate({ orgId: place.orgId, claimId: created.id })).toEqual({
      revoked: true,
      repository: place.repository.full,
      alreadyRevoked: false,
      tokensRevoked: 0,
    });
    expect(await owner.claims.revoke.mutate({ orgId: place.orgId, claimId: created.id })).toMatchObject({ alreadyRevoked: true });
    const audited = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT actor_label FROM audit_log WHERE org_id = $1 AND action = 'repository_claim.revoked'", [place.orgId])).rows,
    );
    expect(audited).toHaveLength(1);
  });

  it("answers another organization's claim like a missing one, and needs tokens.manage", async () => {
    const other = await workplace("console-lists-other");
    const cli = (await seedToken(other.orgId, "cli", ["tokens.manage"])).token;
    const theirs = (await (await claimRepository(cli, other.repository)).json()) as { id: string };
    const owner = await rpcClient(place.sessions.owner);
    const theirClaims = async () => (await (await rpcClient(other.sessions.owner)).claims.list.query({ orgId: other.orgId })).claims;
    await expectRefusal(() => owner.claims.revoke.mutate({ orgId: place.orgId, claimId: theirs.id }), { status: 404, code: "not_found" }, theirClaims);
    expect((await owner.claims.list.query({ orgId: place.orgId })).claims).toEqual([]);
    const member = await rpcClient(place.sessions.member);
    await expectRefusal(() => member.claims.list.query({ orgId: place.orgId }), { status: 403, code: "forbidden" });
  });
});
