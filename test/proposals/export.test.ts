// The data export's `files` are the masking file and egress block in force, and its `maskingRules`
// and `egressPolicy` members every proposal with its decision, by name.
import { describe, expect, it } from "vitest";
import { exportOf } from "../support/exports";
import { MASKING_FILE, PROJECT_CONFIGURATION_FILE } from "../../worker/proposals/store";
import { clientOf, proposalPlace } from "../support/proposals";

describe("proposals in the data export", () => {
  it("exports the files in force keyed by path, and every proposal without internal ids", async () => {
    const place = await proposalPlace("export-files");
    expect((await exportOf(place.orgId)).files).toEqual({});

    const member = await clientOf(place.sessions.member);
    const admin = await clientOf(place.sessions.admin);
    const masking = "tables:\n  people:\n    email: hash\n";
    const first = await member.masking.propose.mutate({ orgId: place.orgId, summary: "Hash e-mails", content: masking });
    await admin.masking.approve.mutate({ orgId: place.orgId, proposalId: first.id });
    const egress = await member.network.propose.mutate({
      orgId: place.orgId,
      summary: "Allow the registry",
      policy: { default: "deny", allow: [{ host: "registry.npmjs.org", ports: [443] }], deny: [] },
    });
    await admin.network.approve.mutate({ orgId: place.orgId, proposalId: egress.id });
    const rejected = await member.masking.propose.mutate({ orgId: place.orgId, summary: "Unmask", content: "" });
    await admin.masking.reject.mutate({ orgId: place.orgId, proposalId: rejected.id });

    const document = await exportOf(place.orgId);
    expect(document.files).toEqual({ [MASKING_FILE]: masking, [PROJECT_CONFIGURATION_FILE]: egress.content });
    expect(document.maskingRules.map((proposal) => [proposal.summary, proposal.state]).sort()).toEqual([
      ["Hash e-mails", "approved"],
      ["Unmask", "rejected"],
    ]);
    expect(document.egressPolicy).toEqual([
      expect.objectContaining({
        summary: "Allow the registry",
        loosens: true,
        loosened: ["registry.npmjs.org:443"],
        pullRequest: expect.objectContaining({ state: "opened", number: 2 }),
      }),
    ]);
    const { auditLog: _auditLog, ...named } = document;
    expect(JSON.stringify(named)).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
  });
});
