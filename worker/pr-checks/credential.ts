// Commit credentials (spec: POST /v1/pr/callback-token, Authentication rule 10, Limits): a workflow
// identity token, verified and admitted exactly like the identity exchange, buys a bearer credential
// bound to one commit and one workflow run, good for under an hour and for one report. A fork pull
// request's commit gets none until a person approves that exact commit (approvals.ts).
import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { JWTPayload } from "jose";
import { prCredentials } from "../../db/schema/proposals";
import { inTenant, tenantTransaction, type Connection, type Transaction } from "../../db/transaction";
import type { CodehostConfig } from "../config/types";
import { appAccessTo } from "../codehost";
import { callCodehost, CodehostUnreachable, describeAnswer } from "../codehost";
import { admitIdentity, claimFor } from "../repository-claims";
import { IdentityRefusal } from "../codehost";
import type { WorkflowIdentity } from "../codehost";
import { ownerOf } from "../http/repository-name";
import { Refusal } from "../http/refusal";
import { base64url, hashToken } from "../http/hash";
import { commitApproved, recordWaitingCommit } from "./approvals";

/** Spec, Limits: under one hour. */
export const COMMIT_CREDENTIAL_LIFETIME_MS = 55 * 60_000;
const PREFIX = "svc_prc_";

export class ForkCommitNotApproved extends Refusal {
  override readonly name = "ForkCommitNotApproved";
  constructor(message: string) {
    super("fork_commit_not_approved", message);
  }

  override body(): { error: string; reason: "fork_commit_not_approved" } {
    return { error: this.message, reason: "fork_commit_not_approved" };
  }
}

interface RunClaims {
  sha: string;
  runId: string;
  runAttempt: number;
  /** From a `refs/pull/<n>/merge` ref (a pull_request run). */
  pullRequest: number | null;
}

const decimal = (value: unknown) =>
  typeof value === "string" && /^[1-9][0-9]{0,19}$/.test(value) ? value : Number.isSafeInteger(value) && (value as number) > 0 ? String(value) : null;

function runOf(claims: JWTPayload): RunClaims {
  const sha = typeof claims.sha === "string" && /^[0-9a-f]{40}$/.test(claims.sha) ? claims.sha : null;
  const runId = decimal(claims.run_id);
  if (!sha || !runId) {
    throw new IdentityRefusal(
      "malformed",
      "The identity token names no commit (sha) or workflow run (run_id); request it from the workflow run whose check this is.",
    );
  }
  const pull = typeof claims.ref === "string" ? /^refs\/pull\/([1-9][0-9]{0,9})\/merge$/.exec(claims.ref) : null;
  return { sha, runId, runAttempt: Number(decimal(claims.run_attempt) ?? 1), pullRequest: pull ? Number(pull[1]) : null };
}

interface PullHead {
  commit: string;
  fork: boolean;
  headRepository: string | null;
}

const codehostRefused = (message: string) => new Refusal("codehost_refused", message);

/** The pull request's head commit and whether it comes from a fork, as the code host says (read as the App, no transaction open). */
async function readPull(transaction: Transaction, codehost: CodehostConfig, repository: string, number: number): Promise<PullHead> {
  const access = await appAccessTo(transaction, codehost, ownerOf(repository));
  if (!access.ok) throw codehostRefused(access.reason);
  let answer: Awaited<ReturnType<typeof callCodehost>>;
  try {
    answer = await callCodehost(codehost.apiBase, "GET", `/repos/${repository.split("/").map(encodeURIComponent).join("/")}/pulls/${number}`, access.token);
  } catch (error) {
    if (error instanceof CodehostUnreachable) throw codehostRefused(`The code host could not be reached (${error.message}) to read pull request #${number}.`);
    throw error;
  }
  const pull = answer.body as { head?: { sha?: unknown; repo?: { id?: unknown; full_name?: unknown } | null }; base?: { repo?: { id?: unknown } } } | null;
  const sha = pull?.head?.sha;
  if (answer.status !== 200 || typeof sha !== "string" || !/^[0-9a-f]{40}$/.test(sha)) {
    throw codehostRefused(`Pull request #${number} of ${repository} could not be read (${describeAnswer(answer)}).`);
  }
  const head = pull?.head?.repo ?? null;
  // A head repository that is gone (a deleted fork) counts as a fork.
  const fork = head === null || String(head.id) !== String(pull?.base?.repo?.id);
  return { commit: sha, fork, headRepository: typeof head?.full_name === "string" ? head.full_name : null };
}

export interface IssuedCredential {
  token: string;
  expiresAt: Date;
  repository: string;
  commit: string;
  runId: string;
  runAttempt: number;
  pullRequest: number | null;
  fork: boolean;
}

const ALREADY_REPORTED = (commit: string, runId: string) =>
  new Refusal("already_reported", `The check on ${commit} for workflow run ${runId} was already reported; a check reports once.`);

export async function issueCommitCredential(
  connect: () => Promise<Connection>,
  codehost: CodehostConfig,
  identity: WorkflowIdentity,
  claims: JWTPayload,
  pullRequestAsked: number | undefined,
): Promise<IssuedCredential> {
  const run = runOf(claims);
  const pullRequest = pullRequestAsked ?? run.pullRequest;
  const claim = await claimFor(connect, identity);
  // Admitted (the identity token spent) before the code host is asked, in a transaction of its own:
  // none is open while the pull request is read.
  await inTenant(connect, claim.orgId, (tx) => admitIdentity(tx, claim, identity));
  const head: PullHead =
    pullRequest === null
      ? { commit: run.sha, fork: false, headRepository: null }
      : await readPull(tenantTransaction(connect, claim.orgId), codehost, identity.repository, pullRequest);
  const outcome = await inTenant(connect, claim.orgId, async (tx) => {
    if (head.fork && !(await commitApproved(tx, claim.orgId, identity.repository, head.commit))) {
      // Kept (committed) so that the console can show the commit waiting for approval.
      await recordWaitingCommit(tx, claim.orgId, { repository: identity.repository, commit: head.commit, pullRequest, headRepository: head.headRepository });
      return { refused: head.commit } as const;
    }
    const reported = await tx
      .select({ reported: sql`1` })
      .from(prCredentials)
      .where(
        and(
          eq(prCredentials.orgId, claim.orgId),
          sql`lower(${prCredentials.repository}) = lower(${identity.repository})`,
          eq(prCredentials.commitSha, head.commit),
          eq(prCredentials.runId, run.runId),
          eq(prCredentials.runAttempt, run.runAttempt),
          isNotNull(prCredentials.reportedAt),
        ),
      );
    if (reported.length) throw ALREADY_REPORTED(head.commit, run.runId);
    const token = PREFIX + base64url(crypto.getRandomValues(new Uint8Array(32)));
    const expiresAt = new Date(Date.now() + COMMIT_CREDENTIAL_LIFETIME_MS);
    await tx.insert(prCredentials).values({
      orgId: claim.orgId,
      tokenHash: await hashToken(token),
      repository: identity.repository,
      commitSha: head.commit,
      runId: run.runId,
      runAttempt: run.runAttempt,
      pullRequest,
      fork: head.fork,
      createdAt: new Date(),
      expiresAt,
      bindingId: claim.id,
    });
    return {
      issued: {
        token,
        expiresAt,
        repository: identity.repository,
        commit: head.commit,
        runId: run.runId,
        runAttempt: run.runAttempt,
        pullRequest,
        fork: head.fork,
      },
    };
  });
  if ("refused" in outcome) {
    throw new ForkCommitNotApproved(
      `Commit ${outcome.refused} comes from a fork's pull request; a maintainer must approve this exact commit in the console before its check can report.`,
    );
  }
  return outcome.issued;
}

export { ALREADY_REPORTED };
