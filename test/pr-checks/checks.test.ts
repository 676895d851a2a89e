// Pull-request checks: POST /v1/pr/callback-token verifies a workflow identity token like the identity
// exchange and answers a credential bound to one commit and one run, expiring within the hour, stored
// as a hash; a fork's commit waits for a person to approve that exact commit; POST /v1/pr/report
// reports once, as a check run the App creates on that commit.
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../worker/http/hash";
import { identityToken, newRepository } from "../support/codehost";
import { call } from "../support/http";
import { clientOf, failure, gitFault, openPull, proposalPlace, received, type ProposalPlace } from "../support/proposals";
import { asRole, asTenant } from "../support/sql";
import { statusAndCode } from "../support/refusals";

const sha = () => [...crypto.getRandomValues(new Uint8Array(20))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
const runId = () => String(Math.floor(Math.random() * 1e10) + 1);

interface Credential {
  token: string;
  expires_at: string;
  repository: string;
  commit: string;
  run_id: string;
  run_attempt: number;
  pull_request: number | null;
  fork: boolean;
}

const callbackToken = (token: string, more: Record<string, unknown> = {}) => call("/v1/pr/callback-token", { method: "POST", json: { token, ...more } });
const report = (credential: string, body: Record<string, unknown> = {}) =>
  call("/v1/pr/report", {
    method: "POST",
    token: credential,
    json: { conclusion: "success", title: "All checks passed", summary: "3 verdicts, all green", ...body },
  });

async function credentialFor(place: ProposalPlace, claims: Record<string, unknown>, more: Record<string, unknown> = {}): Promise<Credential> {
  const response = await callbackToken(await identityToken(place.repository, claims), more);
  expect(response.status).toBe(200);
  return (await response.json()) as Credential;
}

async function refusal(response: Response) {
  return { status: response.status, code: response.headers.get("x-svc-error-code"), body: (await response.json()) as { error: string; reason?: string } };
}

describe("POST /v1/pr/callback-token", () => {
  it("answers a credential for the token's commit and run, expiring within the hour, stored only as its hash", async () => {
    const place = await proposalPlace("pr-push");
    const commit = sha();
    const run = runId();
    const before = Date.now();
    const credential = await credentialFor(place, { sha: commit, run_id: run, run_attempt: "2" });
    expect(credential).toMatchObject({ repository: place.repository.full, commit, run_id: run, run_attempt: 2, pull_request: null, fork: false });
    const lifetime = Date.parse(credential.expires_at) - before;
    expect(lifetime).toBeGreaterThan(0);
    expect(lifetime).toBeLessThan(3600_000);
    const rows = await asRole("superuser", async (client) => (await client.query("SELECT * FROM pr_credentials WHERE org_id = $1", [place.orgId])).rows);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(await sha256Hex(credential.token));
    expect(JSON.stringify(rows)).not.toContain(credential.token);
  });

  it("refuses what the identity exchange refuses: an unverified token (401), an unclaimed repository (403), a token spent already", async () => {
    expect(await refusal(await callbackToken("not-a-token"))).toMatchObject({ status: 401, body: { reason: "malformed" } });
    expect(await refusal(await callbackToken(await identityToken(newRepository("pr-unclaimed"))))).toMatchObject({
      status: 403,
      body: { reason: "no_binding" },
    });
    const place = await proposalPlace("pr-replay");
    const token = await identityToken(place.repository, { sha: sha() });
    expect((await callbackToken(token)).status).toBe(200);
    expect(await refusal(await callbackToken(token))).toMatchObject({ status: 401, body: { reason: "expired" } });
    expect(await refusal(await callbackToken(await identityToken(place.repository, { sha: null })))).toMatchObject({
      status: 401,
      body: { reason: "malformed" },
    });
  });

  it("binds a pull request's credential to the pull request's head commit, as the code host reports it", async () => {
    const place = await proposalPlace("pr-same");
    const pull = await openPull(place.repository, place.repository.full);
    const fromRef = await credentialFor(place, { sha: sha(), ref: `refs/pull/${pull.number}/merge` });
    expect(fromRef).toMatchObject({ commit: pull.head_sha, pull_request: pull.number, fork: false });
    const named = await credentialFor(place, { sha: sha(), event_name: "pull_request_target" }, { pullRequest: pull.number });
    expect(named).toMatchObject({ commit: pull.head_sha, pull_request: pull.number, fork: false });
    // A pull request the code host does not know: its answer is quoted.
    expect(await refusal(await callbackToken(await identityToken(place.repository), { pullRequest: 999 }))).toMatchObject({
      status: 502,
      code: "codehost_refused",
    });
  });
});

describe("fork pull requests", () => {
  it("refuse a credential until a maintainer approves that exact commit; approving one approves no other", async () => {
    const place = await proposalPlace("pr-fork");
    const pull = await openPull(place.repository, `forker-${crypto.randomUUID().slice(0, 6)}/shop`);
    const asked = async () => callbackToken(await identityToken(place.repository, { event_name: "pull_request_target" }), { pullRequest: pull.number });

    expect(await refusal(await asked())).toMatchObject({
      status: 403,
      code: "fork_commit_not_approved",
      body: { reason: "fork_commit_not_approved", error: expect.stringContaining(pull.head_sha) },
    });
    const admin = await clientOf(place.sessions.admin);
    expect(await admin.pullRequests.commits.query({ orgId: place.orgId })).toEqual({
      items: [
        expect.objectContaining({
          repository: place.repository.full,
          commit: pull.head_sha,
          pullRequest: pull.number,
          approvedAt: null,
          headRepository: expect.stringMatching(/^forker-/),
        }),
      ],
      nextCursor: null,
    });
    // A member may not approve (tokens.manage).
    const member = await clientOf(place.sessions.member);
    expect(
      await failure(member.pullRequests.approveCommit.mutate({ orgId: place.orgId, repository: place.repository.full, commit: pull.head_sha })),
    ).toMatchObject({ httpStatus: 403 });

    const approved = await admin.pullRequests.approveCommit.mutate({
      orgId: place.orgId,
      repository: place.repository.full,
      commit: pull.head_sha,
      pullRequest: pull.number,
    });
    expect(approved).toMatchObject({ commit: pull.head_sha, approvedAt: expect.any(String), approvedBy: expect.stringMatching(/^admin-/) });
    const granted = await asked();
    expect(granted.status).toBe(200);
    expect(await granted.json()).toMatchObject({ commit: pull.head_sha, fork: true, pull_request: pull.number });

    // Another commit from a fork (a new push makes a new head) is refused again.
    const next = await openPull(place.repository, `forker-${crypto.randomUUID().slice(0, 6)}/shop`);
    expect(statusAndCode(await refusal(await callbackToken(await identityToken(place.repository), { pullRequest: next.number })))).toEqual([
      403,
      "fork_commit_not_approved",
    ]);
    // Listed waiting first, then approved, a page at a time.
    const waiting = await admin.pullRequests.commits.query({ orgId: place.orgId, limit: 1 });
    expect(waiting.items).toEqual([expect.objectContaining({ commit: next.head_sha, approvedAt: null })]);
    expect(await admin.pullRequests.commits.query({ orgId: place.orgId, limit: 1, cursor: waiting.nextCursor! })).toEqual({
      items: [expect.objectContaining({ commit: pull.head_sha, approvedAt: approved.approvedAt })],
      nextCursor: null,
    });
    const audited = await asRole(
      "superuser",
      async (client) => (await client.query("SELECT target FROM audit_log WHERE org_id = $1 AND action = 'pull_request_commit.approved'", [place.orgId])).rows,
    );
    expect(audited).toEqual([{ target: `${place.repository.full}@${pull.head_sha}` }]);
  });

  it("approving a commit of a repository the organization has not claimed is 404, and other organizations see nothing", async () => {
    const place = await proposalPlace("pr-fork-iso");
    const other = await proposalPlace("pr-fork-iso-other");
    const pull = await openPull(place.repository, `forker-${crypto.randomUUID().slice(0, 6)}/shop`);
    await callbackToken(await identityToken(place.repository), { pullRequest: pull.number }).then((response) => response.json());
    const outsider = await clientOf(other.sessions.admin);
    expect(
      await failure(outsider.pullRequests.approveCommit.mutate({ orgId: other.orgId, repository: place.repository.full, commit: pull.head_sha })),
    ).toMatchObject({ httpStatus: 404 });
    expect(await outsider.pullRequests.commits.query({ orgId: other.orgId })).toEqual({ items: [], nextCursor: null });
    expect(await asTenant(other.orgId, async (client) => (await client.query("SELECT * FROM pr_commit_approvals")).rows)).toEqual([]);
    expect(await asTenant(place.orgId, async (client) => (await client.query("SELECT * FROM pr_commit_approvals")).rows)).toHaveLength(1);
  });
});

describe("POST /v1/pr/report", () => {
  it("creates the check on the credential's commit as the App, once: a second report is 409", async () => {
    const place = await proposalPlace("pr-report");
    const commit = sha();
    const run = runId();
    const credential = await credentialFor(place, { sha: commit, run_id: run });
    const first = await report(credential.token, { name: "svc verdicts", conclusion: "failure" });
    expect(first.status).toBe(201);
    const reported = (await first.json()) as { checkRunId: number; commit: string; url: string };
    expect(reported).toMatchObject({ repository: place.repository.full, commit, conclusion: "failure" });
    expect((await received(place.repository)).checkRuns).toEqual([
      expect.objectContaining({
        id: reported.checkRunId,
        head_sha: commit,
        name: "svc verdicts",
        status: "completed",
        conclusion: "failure",
        external_id: `${run}/1`,
        output: { title: "All checks passed", summary: "3 verdicts, all green" },
      }),
    ]);

    expect(await refusal(await report(credential.token))).toMatchObject({ status: 409, code: "already_reported" });
    // A new credential for the same commit and run cannot report again either.
    expect(await refusal(await callbackToken(await identityToken(place.repository, { sha: commit, run_id: run })))).toMatchObject({
      status: 409,
      code: "already_reported",
    });
    expect((await received(place.repository)).checkRuns).toHaveLength(1);
  });

  it("reports on its own commit and run only (403 for another), and not at all once expired or unknown (401)", async () => {
    const place = await proposalPlace("pr-bound");
    const credential = await credentialFor(place, { sha: sha(), run_id: runId() });
    expect(await refusal(await report(credential.token, { commit: sha() }))).toMatchObject({
      status: 403,
      code: "forbidden",
      body: { error: expect.stringContaining(credential.commit) },
    });
    expect(await refusal(await report(credential.token, { runId: "1" }))).toMatchObject({ status: 403, code: "forbidden" });
    expect((await received(place.repository)).checkRuns).toEqual([]);

    expect(await refusal(await report("svc_prc_unknown"))).toMatchObject({ status: 401, code: "unauthenticated" });
    // One scheme per route: an engine token is no commit credential, and a commit credential is no engine token.
    expect(await refusal(await report(place.engine))).toMatchObject({ status: 401, code: "unauthenticated" });
    expect((await call("/v1/events", { method: "POST", token: credential.token, json: { events: [] } })).status).toBe(401);
    expect((await call("/v1/pr/report", { method: "POST", json: { conclusion: "success", title: "t", summary: "s" } })).status).toBe(401);
    const hash = await sha256Hex(credential.token);
    await asRole("superuser", (client) => client.query("UPDATE pr_credentials SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [hash]));
    expect(await refusal(await report(credential.token))).toMatchObject({
      status: 401,
      code: "unauthenticated",
      body: { error: expect.stringMatching(/expired/) },
    });
    // Matching the credential's own commit is fine while it lives.
    const live = await credentialFor(place, { sha: sha(), run_id: runId() });
    expect((await report(live.token, { commit: live.commit, runId: live.run_id })).status).toBe(201);
  });

  it("a check the code host refuses is 502 and leaves the credential unspent", async () => {
    const place = await proposalPlace("pr-refused");
    const credential = await credentialFor(place, { sha: sha() });
    await gitFault(place.repository, "check-runs", 403, "Resource not accessible by integration");
    expect(await refusal(await report(credential.token))).toMatchObject({
      status: 502,
      code: "codehost_refused",
      body: { error: expect.stringContaining("HTTP 403") },
    });
    await gitFault(place.repository, "check-runs", null);
    expect((await report(credential.token)).status).toBe(201);
  });

  it("refuses while the organization is suspended (403 with retryAfterSeconds), the credential unspent", async () => {
    const place = await proposalPlace("pr-suspended");
    const credential = await credentialFor(place, { sha: sha() });
    await asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = now() WHERE id = $1", [place.orgId]));
    expect(await refusal(await report(credential.token))).toMatchObject({ status: 403, code: "organization_suspended", body: { retryAfterSeconds: 300 } });
    await asRole("superuser", (client) => client.query("UPDATE organizations SET suspended_at = NULL WHERE id = $1", [place.orgId]));
    expect((await report(credential.token)).status).toBe(201);
  });

  it("refuses a body that is not a report (400), but only to a live credential: no, unknown or expired credential with a bad body is 401", async () => {
    const place = await proposalPlace("pr-400");
    const credential = await credentialFor(place, { sha: sha() });
    expect((await report(credential.token, { conclusion: "great" })).status).toBe(400);
    expect((await report("svc_prc_unknown", { conclusion: "great" })).status).toBe(401);
    expect((await call("/v1/pr/report", { method: "POST", json: { conclusion: "great" } })).status).toBe(401);
    const notJson = await call("/v1/pr/report", { method: "POST", token: "svc_prc_unknown", body: "{", headers: { "content-type": "application/json" } });
    expect(notJson.status).toBe(401);
    await asRole("superuser", async (client) =>
      client.query("UPDATE pr_credentials SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [await sha256Hex(credential.token)]),
    );
    expect((await report(credential.token, { conclusion: "great" })).status).toBe(401);
  });

  it("refuses a credential (401) once the repository claim it came through is revoked: it died with the claim", async () => {
    const place = await proposalPlace("pr-revoked");
    const credential = await credentialFor(place, { sha: sha() });
    const revoked = await call(`/v1/oidc/bindings/${place.repository.full.replace("/", "%2F")}`, { method: "DELETE", token: place.cli });
    expect(revoked.status).toBe(200);
    expect(await refusal(await report(credential.token))).toMatchObject({
      status: 401,
      code: "unauthenticated",
      body: { error: expect.stringMatching(/revoked/) },
    });
    expect((await received(place.repository)).checkRuns).toEqual([]);
  });
});

describe("401 before 400 on POST /v1/pr/callback-token", () => {
  it("answers an unverified identity token with a bad pullRequest 401; a verified one with a bad pullRequest 400", async () => {
    const place = await proposalPlace("pr-order");
    expect(await refusal(await callbackToken("not-a-token", { pullRequest: "seven" }))).toMatchObject({ status: 401, body: { reason: "malformed" } });
    const forged = await identityToken(place.repository, {}, { variant: "wrong_key" });
    expect(await refusal(await callbackToken(forged, { pullRequest: -1 }))).toMatchObject({ status: 401, body: { reason: "invalid_signature" } });
    expect((await callbackToken(await identityToken(place.repository), { pullRequest: "seven" })).status).toBe(400);
    // No token at all: nothing to authenticate, the body is simply not a request.
    expect((await call("/v1/pr/callback-token", { method: "POST", json: { pullRequest: 1 } })).status).toBe(400);
  });
});
