// Masking and egress proposals: proposed by one person, decided by another (never by its author),
// loosening marked, every step audited, opened as a pull request at the fake code host with the exact
// file, a refused pull request kept on the proposal and retried; the files in force; other
// organizations see nothing.
import { describe, expect, it } from "vitest";
import { MASKING_FILE, PROJECT_CONFIGURATION_FILE } from "../../worker/proposals/store";
import { auditEntries } from "../support/engine-work";
import { clientOf, failure, gitFault, proposalPlace, putFile, received } from "../support/proposals";
import { rpcClient } from "../support/rpc";
import { seedOrganization } from "../support/seed";
import { seedPerson, seedSession } from "../support/sessions";
import { asTenant } from "../support/sql";
import { isoAgo, makeEvent, sendAccepted } from "../support/events";

const MASKING = "# masking rules\ntables:\n  customers:\n    email: hash\n    name: fake_name\n  orders:\n    card_number: redact\n";

describe("masking proposals", () => {
  it("a member proposes, an admin approves, and the exact file is opened as a pull request by the App", async () => {
    const place = await proposalPlace("masking");
    const member = await clientOf(place.sessions.member);
    const admin = await clientOf(place.sessions.admin);

    const proposed = await member.masking.propose.mutate({ orgId: place.orgId, summary: "Hash customer e-mails", content: MASKING });
    expect(proposed).toMatchObject({
      kind: "masking",
      state: "proposed",
      repository: place.repository.full,
      path: MASKING_FILE,
      content: MASKING,
      mine: true,
      loosens: false,
    });
    // Nothing reaches the code host before approval.
    expect((await received(place.repository)).pulls).toEqual([]);

    const approved = await admin.masking.approve.mutate({ orgId: place.orgId, proposalId: proposed.id, note: "looks right" });
    expect(approved).toMatchObject({ state: "approved", decisionNote: "looks right", mine: false, pullRequest: { state: "opened", attempts: 1, number: 1 } });
    const branch = approved.pullRequest.branch!;
    expect(branch).toBe(`svc/masking-${proposed.id.slice(0, 8)}`);

    const got = await received(place.repository);
    expect(got.refs).toEqual([expect.objectContaining({ ref: `refs/heads/${branch}` })]);
    expect(got.commits).toEqual([expect.objectContaining({ branch, path: MASKING_FILE, content: MASKING })]);
    expect(got.pulls).toEqual([expect.objectContaining({ number: 1, head: branch, base: "main", title: "Masking rules: Hash customer e-mails" })]);

    // The file in force is the approved text, as it is.
    expect(await member.masking.current.query({ orgId: place.orgId })).toMatchObject({ path: MASKING_FILE, content: MASKING, proposalId: proposed.id });
    for (const action of ["masking.proposed", "masking.approved", "masking.pull_request_opened"]) {
      expect({ action, entries: (await auditEntries(place.orgId, action)).map((entry) => entry.target) }).toEqual({ action, entries: [proposed.id] });
    }
  });

  it("refuses the author's own approval (403), leaving the proposal to someone else", async () => {
    const place = await proposalPlace("self");
    const admin = await clientOf(place.sessions.admin);
    const proposed = await admin.masking.propose.mutate({ orgId: place.orgId, summary: "Mine", content: MASKING });
    expect(await failure(admin.masking.approve.mutate({ orgId: place.orgId, proposalId: proposed.id }))).toMatchObject({
      httpStatus: 403,
      code: "FORBIDDEN",
      message: expect.stringMatching(/own proposal/),
    });
    expect((await admin.masking.proposals.query({ orgId: place.orgId })).items[0]).toMatchObject({ id: proposed.id, state: "proposed", mine: true });
    expect(await auditEntries(place.orgId, "masking.approved")).toEqual([]);
    const other = await clientOf(place.secondAdmin);
    expect(await other.masking.approve.mutate({ orgId: place.orgId, proposalId: proposed.id })).toMatchObject({ state: "approved" });
  });

  it("rejects, audited; a decided proposal cannot be decided again (409)", async () => {
    const place = await proposalPlace("reject");
    const member = await clientOf(place.sessions.member);
    const owner = await clientOf(place.sessions.owner);
    const proposed = await member.masking.propose.mutate({ orgId: place.orgId, summary: "Drop masking", content: "" });
    expect(await owner.masking.reject.mutate({ orgId: place.orgId, proposalId: proposed.id, note: "no" })).toMatchObject({
      state: "rejected",
      decisionNote: "no",
    });
    expect(await failure(owner.masking.approve.mutate({ orgId: place.orgId, proposalId: proposed.id }))).toMatchObject({ httpStatus: 409 });
    expect((await auditEntries(place.orgId, "masking.rejected")).map((entry) => entry.target)).toEqual([proposed.id]);
    expect((await received(place.repository)).pulls).toEqual([]);
    expect((await member.masking.current.query({ orgId: place.orgId })).content).toBe("");
  });

  it("a refused pull request is recorded on the proposal, audited, and opened on retry", async () => {
    const place = await proposalPlace("refused");
    const member = await clientOf(place.sessions.member);
    const admin = await clientOf(place.sessions.admin);
    const proposed = await member.masking.propose.mutate({ orgId: place.orgId, summary: "Redact cards", content: MASKING });

    await gitFault(place.repository, "pulls", 403, "Resource not accessible by integration");
    const approved = await admin.masking.approve.mutate({ orgId: place.orgId, proposalId: proposed.id });
    expect(approved).toMatchObject({
      state: "approved",
      pullRequest: {
        state: "refused",
        attempts: 1,
        number: null,
        refusalStatus: 403,
        refusal: expect.stringContaining("HTTP 403: Resource not accessible by integration"),
      },
    });
    expect((await auditEntries(place.orgId, "masking.pull_request_refused"))[0]).toMatchObject({ target: proposed.id, data: { status: 403 } });
    // Still there when read again.
    expect((await member.masking.proposals.query({ orgId: place.orgId })).items[0]!.pullRequest).toMatchObject({ state: "refused", refusalStatus: 403 });

    await gitFault(place.repository, "pulls", null);
    const retried = await admin.masking.openPullRequest.mutate({ orgId: place.orgId, proposalId: proposed.id });
    expect(retried.pullRequest).toMatchObject({ state: "opened", attempts: 2, number: 1, refusal: null, refusalStatus: null });
    const got = await received(place.repository);
    // The branch of the first attempt is reused, and the file is committed once.
    expect(got.refs).toHaveLength(1);
    expect(got.commits).toEqual([expect.objectContaining({ path: MASKING_FILE, content: MASKING })]);
    expect(got.pulls).toHaveLength(1);
    expect(await failure(admin.masking.openPullRequest.mutate({ orgId: place.orgId, proposalId: proposed.id }))).toMatchObject({ httpStatus: 409 });
  });

  it("a code host that refuses the branch is recorded too, with its status", async () => {
    const place = await proposalPlace("refs");
    const member = await clientOf(place.sessions.member);
    const proposed = await member.masking.propose.mutate({ orgId: place.orgId, summary: "x", content: MASKING });
    await gitFault(place.repository, "refs", 404, "Not Found");
    const approved = await (await clientOf(place.sessions.owner)).masking.approve.mutate({ orgId: place.orgId, proposalId: proposed.id });
    expect(approved.pullRequest).toMatchObject({ state: "refused", refusalStatus: 404 });
    await gitFault(place.repository, "refs", null);
  });
});

describe("egress proposals", () => {
  it("marks a change that allows what was denied as loosening, and one that does not as not", async () => {
    const place = await proposalPlace("loosen");
    const member = await clientOf(place.sessions.member);
    const admin = await clientOf(place.sessions.admin);
    const opening = await member.network.propose.mutate({
      orgId: place.orgId,
      summary: "Allow the payment API",
      policy: { default: "deny", allow: [{ host: "api.payments.example", ports: [443] }], deny: [] },
    });
    expect(opening).toMatchObject({ loosens: true, loosened: ["api.payments.example:443"] });
    await admin.network.approve.mutate({ orgId: place.orgId, proposalId: opening.id });
    const pull = (await received(place.repository)).pulls[0]!;
    expect(pull.title).toBe("Egress policy (loosens egress): Allow the payment API");
    expect(pull.body).toContain("allows api.payments.example:443");

    const tightening = await member.network.propose.mutate({
      orgId: place.orgId,
      summary: "Only that API, and never the metadata host",
      policy: { default: "deny", allow: [{ host: "api.payments.example", ports: [443] }], deny: [{ host: "metadata.internal", ports: [] }] },
    });
    expect(tightening).toMatchObject({ loosens: false, loosened: [] });
    const everything = await member.network.propose.mutate({ orgId: place.orgId, summary: "Open up", policy: { default: "allow", allow: [], deny: [] } });
    expect(everything.loosens).toBe(true);
    expect(everything.loosened).toContain("any host no rule names");
    // Loosening needs an approver like any other change.
    expect(await failure(member.network.approve.mutate({ orgId: place.orgId, proposalId: everything.id }))).toMatchObject({ httpStatus: 403 });

    // Listed newest first, a page at a time, apart from the masking file's proposals.
    const newest = await member.network.proposals.query({ orgId: place.orgId, limit: 2 });
    expect(newest.items.map((proposal) => proposal.id)).toEqual([everything.id, tightening.id]);
    const rest = await member.network.proposals.query({ orgId: place.orgId, limit: 2, cursor: newest.nextCursor! });
    expect(rest).toEqual({ items: [expect.objectContaining({ id: opening.id, state: "approved" })], nextCursor: null });
    expect(await member.masking.proposals.query({ orgId: place.orgId })).toEqual({ items: [], nextCursor: null });
  });

  it("replays the last 30 days' decisions against a proposal before it is decided: what it would newly allow and deny, from how many environments", async () => {
    const place = await proposalPlace("replay");
    const member = await clientOf(place.sessions.member);
    const decision = (envId: string, host: string, port: number, verdict: "allowed" | "denied", ago = 60_000) =>
      makeEvent({ type: "network.decision", envId, occurredAt: isoAgo(ago), payload: { host, port, decision: verdict } });
    await sendAccepted(place.engine, [
      decision("pr-1", "api.payments.example", 443, "denied"),
      decision("pr-1", "api.payments.example", 443, "denied"),
      decision("pr-2", "api.payments.example", 443, "denied"),
      decision("pr-3", "api.payments.example", 443, "denied"),
      decision("pr-1", "db.internal", 5432, "allowed"),
      decision("pr-2", "metrics.example", 443, "allowed"),
      // Older than the replay's 30 days: not counted.
      decision("pr-4", "api.payments.example", 443, "denied", 40 * 86_400_000),
    ]);
    const proposed = await member.network.propose.mutate({
      orgId: place.orgId,
      summary: "Allow the payment API, keep metrics out",
      policy: {
        default: "deny",
        allow: [
          { host: "api.payments.example", ports: [443] },
          { host: "db.internal", ports: [] },
        ],
        deny: [],
      },
    });
    expect(await member.network.effect.query({ orgId: place.orgId, proposalId: proposed.id })).toEqual({
      days: 30,
      requests: 6,
      newlyAllowed: { requests: 4, environments: 3, destinations: ["api.payments.example:443"] },
      newlyDenied: { requests: 1, environments: 1, destinations: ["metrics.example:443"] },
    });
    // Another organization learns nothing of it: answered like a missing one.
    const stranger = await clientOf((await proposalPlace("replay-other")).sessions.owner);
    expect(await failure(stranger.network.effect.query({ orgId: place.orgId, proposalId: proposed.id }))).toMatchObject({ httpStatus: 404 });
  });

  it("commits the project configuration with only its egress block replaced", async () => {
    const place = await proposalPlace("egress-file");
    await putFile(
      place.repository,
      PROJECT_CONFIGURATION_FILE,
      "# project\nname: shop\negress:\n  default: allow\n  allow: []\n  deny: []\n\nengine:\n  image: svc/engine:1\n",
    );
    const member = await clientOf(place.sessions.member);
    const proposed = await member.network.propose.mutate({
      orgId: place.orgId,
      summary: "Deny by default",
      policy: {
        default: "deny",
        allow: [
          { host: "*.github.com", ports: [] },
          { host: "registry.npmjs.org", ports: [443, 80] },
        ],
        deny: [],
      },
    });
    const block = "egress:\n  default: deny\n  allow:\n    - host: *.github.com\n    - host: registry.npmjs.org\n      ports: [80, 443]\n  deny: []\n";
    expect(proposed.content).toBe(block);
    const approved = await (await clientOf(place.sessions.owner)).network.approve.mutate({ orgId: place.orgId, proposalId: proposed.id });
    expect(approved.pullRequest.state).toBe("opened");
    const [commit] = (await received(place.repository)).commits;
    expect(commit).toMatchObject({ path: PROJECT_CONFIGURATION_FILE, content: `# project\nname: shop\n${block}\nengine:\n  image: svc/engine:1\n` });
    expect(await member.network.current.query({ orgId: place.orgId })).toMatchObject({
      path: PROJECT_CONFIGURATION_FILE,
      content: block,
      policy: { default: "deny" },
    });
  });

  it("refuses a policy that is not one (400) and a host that is not a host name", async () => {
    const place = await proposalPlace("egress-bad");
    const member = await clientOf(place.sessions.member);
    expect(await failure(member.network.propose.mutate({ orgId: place.orgId, summary: "x", policy: { default: "maybe" } as never }))).toMatchObject({
      httpStatus: 400,
    });
    expect(
      await failure(
        member.network.propose.mutate({ orgId: place.orgId, summary: "x", policy: { default: "deny", allow: [{ host: "http://x/", ports: [] }], deny: [] } }),
      ),
    ).toMatchObject({ httpStatus: 400 });
  });
});

describe("the repository a proposal lands in", () => {
  it("is the organization's claimed repository; none claimed is 412, one not claimed is 400", async () => {
    const orgId = (await seedOrganization("unclaimed")).id;
    const member = await rpcClient(await seedSession(await seedPerson(`m-${crypto.randomUUID().slice(0, 6)}`, [{ orgId, role: "member" }])));
    expect(await failure(member.masking.propose.mutate({ orgId, summary: "x", content: MASKING }))).toMatchObject({
      httpStatus: 412,
      message: expect.stringMatching(/claim/),
    });
    const place = await proposalPlace("named");
    const placed = await clientOf(place.sessions.member);
    expect(await failure(placed.masking.propose.mutate({ orgId: place.orgId, summary: "x", content: MASKING, repository: "someone/else" }))).toMatchObject({
      httpStatus: 400,
    });
    expect(
      await placed.masking.propose.mutate({ orgId: place.orgId, summary: "x", content: MASKING, repository: place.repository.full.toUpperCase() }),
    ).toMatchObject({ repository: place.repository.full });
  });
});

describe("tenant isolation", () => {
  it("another organization's people cannot see, decide or retry a proposal, and its rows are invisible to them", async () => {
    const place = await proposalPlace("iso");
    const other = await proposalPlace("iso-other");
    const proposed = await (await clientOf(place.sessions.member)).masking.propose.mutate({ orgId: place.orgId, summary: "secret", content: MASKING });
    const outsider = await clientOf(other.sessions.owner);
    expect(await outsider.masking.proposals.query({ orgId: other.orgId })).toEqual({ items: [], nextCursor: null });
    expect(await failure(outsider.masking.approve.mutate({ orgId: other.orgId, proposalId: proposed.id }))).toMatchObject({ httpStatus: 404 });
    expect(await failure(outsider.masking.openPullRequest.mutate({ orgId: other.orgId, proposalId: proposed.id }))).toMatchObject({ httpStatus: 404 });
    expect(await failure(outsider.masking.proposals.query({ orgId: place.orgId }))).toMatchObject({ httpStatus: 404 });
    // At the database, as the application role acting as the other organization.
    const seen = await asTenant(other.orgId, async (client) => (await client.query("SELECT id FROM change_proposals WHERE id = $1", [proposed.id])).rows);
    expect(seen).toEqual([]);
    const own = await asTenant(place.orgId, async (client) => (await client.query("SELECT id FROM change_proposals WHERE id = $1", [proposed.id])).rows);
    expect(own).toHaveLength(1);
  });
});
