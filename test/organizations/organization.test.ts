// organization.get and organization.settings: what a member reads of their organization (their role
// in it, a suspension with its reason), and the rename: managers only, audited, refused input
// leaving the name as it was, never another organization's.
import { beforeEach, describe, expect, it } from "vitest";
import { auditEntries, workplace, type Workplace } from "../support/engine-work";
import { adminMutation, dataOf, signedInOperator } from "../support/operators";
import { expectRefusal } from "../support/refusals";
import { rpcClient } from "../support/rpc";

let place: Workplace;

beforeEach(async () => {
  place = await workplace("org");
});

const nameOf = async () => (await (await rpcClient(place.sessions.owner)).organization.get.query({ orgId: place.orgId })).name;

describe("organization.get", () => {
  it("answers each member their role, and a suspension with since when, by whom and why", async () => {
    const asViewer = await (await rpcClient(place.sessions.viewer)).organization.get.query({ orgId: place.orgId });
    expect(asViewer).toMatchObject({ id: place.orgId, plan: expect.any(String), suspended: false, suspension: null, role: "viewer" });
    const operator = await signedInOperator();
    await dataOf(adminMutation(operator.cookie, operator.csrf, "admin.suspend", { organizationId: place.orgId, reason: "unpaid invoices" }));
    expect((await (await rpcClient(place.sessions.owner)).organization.get.query({ orgId: place.orgId })).suspension).toEqual({
      since: expect.any(String),
      by: "operator",
      reason: "unpaid invoices",
    });
  });
});

describe("organization.settings", () => {
  it("renames for a manager, audited with the old and the new name", async () => {
    const before = await nameOf();
    expect(await (await rpcClient(place.sessions.admin)).organization.settings.mutate({ orgId: place.orgId, name: "Acme Shop" })).toEqual({
      name: "Acme Shop",
    });
    expect(await nameOf()).toBe("Acme Shop");
    expect((await auditEntries(place.orgId, "organization.renamed")).map((entry) => entry.data)).toEqual([{ from: before, to: "Acme Shop" }]);
  });

  it("refuses a member (403), a blank name (400) and another organization (404), and the name stays", async () => {
    const rename = (session: string, name: string) => async () => (await rpcClient(session)).organization.settings.mutate({ orgId: place.orgId, name });
    await expectRefusal(rename(place.sessions.member, "Taken over"), { status: 403, code: "forbidden" }, nameOf);
    await expectRefusal(rename(place.sessions.owner, ""), { status: 400, code: "invalid_request" }, nameOf);
    const other = await workplace("org-other");
    await expectRefusal(rename(other.sessions.owner, "Mine now"), { status: 404, code: "not_found" }, nameOf);
    expect(await auditEntries(place.orgId, "organization.renamed")).toEqual([]);
  });
});
