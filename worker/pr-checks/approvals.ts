// Fork commits (spec: Authentication rule 10): the code host mints no identity token to a fork's
// job, so a fork pull request's check reports through a run of the base repository, and its commit
// is code nobody in the organization wrote. A credential for it is refused until a person approves
// that exact commit; approving one commit approves no other (a new push is a new commit).
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";

export async function commitApproved(tx: Tx, orgId: string, repository: string, commit: string): Promise<boolean> {
  const { rows } = await tx.sql.query(
    "SELECT 1 FROM pr_commit_approvals WHERE org_id = $1 AND repository_key = lower($2) AND commit_sha = $3 AND approved_at IS NOT NULL",
    [orgId, repository, commit],
  );
  return rows.length > 0;
}

export interface WaitingCommit {
  repository: string;
  commit: string;
  pullRequest: number | null;
  headRepository: string | null;
}

/** A refused request leaves the commit waiting, for the console to offer its approval. */
export async function recordWaitingCommit(tx: Tx, orgId: string, waiting: WaitingCommit): Promise<void> {
  await tx.sql.query(
    `INSERT INTO pr_commit_approvals (org_id, repository, commit_sha, pull_request, head_repository, requested_at) VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (org_id, repository_key, commit_sha) DO UPDATE
       SET requested_at = now(), pull_request = COALESCE(EXCLUDED.pull_request, pr_commit_approvals.pull_request),
           head_repository = COALESCE(EXCLUDED.head_repository, pr_commit_approvals.head_repository)`,
    [orgId, waiting.repository, waiting.commit, waiting.pullRequest, waiting.headRepository],
  );
}

export interface CommitApproval {
  repository: string;
  commit: string;
  pullRequest: number | null;
  headRepository: string | null;
  requestedAt: string | null;
  approvedAt: string | null;
  approvedBy: string | null;
}

interface Row {
  repository: string;
  commit_sha: string;
  pull_request: number | null;
  head_repository: string | null;
  requested_at: Date | null;
  approved_at: Date | null;
  approved_by_label: string | null;
}

const toApproval = (row: Row): CommitApproval => ({
  repository: row.repository,
  commit: row.commit_sha,
  pullRequest: row.pull_request,
  headRepository: row.head_repository,
  requestedAt: row.requested_at?.toISOString() ?? null,
  approvedAt: row.approved_at?.toISOString() ?? null,
  approvedBy: row.approved_by_label,
});

/** Waiting commits first, then approved ones, newest first. */
export async function listCommitApprovals(tx: Tx, orgId: string, limit: number): Promise<CommitApproval[]> {
  const { rows } = await tx.sql.query<Row>(
    `SELECT repository, commit_sha, pull_request, head_repository, requested_at, approved_at, approved_by_label FROM pr_commit_approvals
     WHERE org_id = $1 ORDER BY approved_at IS NOT NULL, COALESCE(approved_at, requested_at) DESC, commit_sha LIMIT $2`,
    [orgId, limit],
  );
  return rows.map(toApproval);
}

/** Approves one commit of a repository the caller's organization claims; an approval already given stays as it was. */
export async function approveCommit(
  tx: Tx,
  orgId: string,
  actor: { actorPersonId: string; actorLabel: string },
  approval: { repository: string; commit: string; pullRequest: number | null },
): Promise<CommitApproval> {
  const { rows } = await tx.sql.query<Row & { fresh: boolean }>(
    `INSERT INTO pr_commit_approvals (org_id, repository, commit_sha, pull_request, approved_at, approved_by, approved_by_label)
     VALUES ($1, $2, $3, $4, now(), $5, $6)
     ON CONFLICT (org_id, repository_key, commit_sha) DO UPDATE
       SET approved_at = COALESCE(pr_commit_approvals.approved_at, now()),
           approved_by = COALESCE(pr_commit_approvals.approved_by, EXCLUDED.approved_by),
           approved_by_label = COALESCE(pr_commit_approvals.approved_by_label, EXCLUDED.approved_by_label),
           pull_request = COALESCE(pr_commit_approvals.pull_request, EXCLUDED.pull_request)
     RETURNING repository, commit_sha, pull_request, head_repository, requested_at, approved_at, approved_by_label,
               approved_at = now() AS fresh`,
    [orgId, approval.repository, approval.commit, approval.pullRequest, actor.actorPersonId, actor.actorLabel],
  );
  const row = rows[0]!;
  if (row.fresh) {
    await appendAudit(tx, {
      orgId,
      action: "pull_request_commit.approved",
      actorPersonId: actor.actorPersonId,
      actorLabel: actor.actorLabel,
      target: `${row.repository}@${row.commit_sha}`,
      data: { repository: row.repository, commit: row.commit_sha, pullRequest: row.pull_request, headRepository: row.head_repository },
    });
  }
  return toApproval(row);
}
