// Fork commits (spec: Authentication rule 10): the code host mints no identity token to a fork's
// job, so a fork pull request's check reports through a run of the base repository, and its commit
// is code nobody in the organization wrote. A credential for it is refused until a person approves
// that exact commit; approving one commit approves no other (a new push is a new commit).
import { and, desc, eq, isNotNull, sql } from "drizzle-orm";
import * as z from "zod";
import { prCommitApprovals } from "../../db/schema/proposals";
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import { KeyTime, keyset } from "../http/paging";
import { CommitSha } from "./schemas";

export async function commitApproved(tx: Tx, orgId: string, repository: string, commit: string): Promise<boolean> {
  const rows = await tx
    .select({ approved: sql`1` })
    .from(prCommitApprovals)
    .where(
      and(
        eq(prCommitApprovals.orgId, orgId),
        eq(prCommitApprovals.repositoryKey, sql`lower(${repository})`),
        eq(prCommitApprovals.commitSha, commit),
        isNotNull(prCommitApprovals.approvedAt),
      ),
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
  await tx
    .insert(prCommitApprovals)
    .values({
      orgId,
      repository: waiting.repository,
      commitSha: waiting.commit,
      pullRequest: waiting.pullRequest,
      headRepository: waiting.headRepository,
      requestedAt: sql`now()`,
    })
    .onConflictDoUpdate({
      target: KEY,
      set: {
        requestedAt: sql`now()`,
        pullRequest: sql`COALESCE(EXCLUDED.pull_request, ${prCommitApprovals.pullRequest})`,
        headRepository: sql`COALESCE(EXCLUDED.head_repository, ${prCommitApprovals.headRepository})`,
      },
    });
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

/** The table's key: one row per commit of a repository. */
const KEY = [prCommitApprovals.orgId, prCommitApprovals.repositoryKey, prCommitApprovals.commitSha];

const COLUMNS = {
  repository: prCommitApprovals.repository,
  commitSha: prCommitApprovals.commitSha,
  pullRequest: prCommitApprovals.pullRequest,
  headRepository: prCommitApprovals.headRepository,
  requestedAt: prCommitApprovals.requestedAt,
  approvedAt: prCommitApprovals.approvedAt,
  approvedByLabel: prCommitApprovals.approvedByLabel,
};
type Row = Pick<typeof prCommitApprovals.$inferSelect, keyof typeof COLUMNS>;

export const toApproval = (row: Row): CommitApproval => ({
  repository: row.repository,
  commit: row.commitSha,
  pullRequest: row.pullRequest,
  headRepository: row.headRepository,
  requestedAt: row.requestedAt?.toISOString() ?? null,
  approvedAt: row.approvedAt?.toISOString() ?? null,
  approvedBy: row.approvedByLabel,
});

// The list's order, as index pr_commit_approvals_listed holds it: waiting (1) before approved (0),
// then by the approval's time (a waiting commit's: its request's), newest first, then the commit. CASE,
// not COALESCE: under row-level security PostgreSQL takes a COALESCE for leaky, and would filter the
// page's rows one by one after the organization's instead of reading them as an index range.
const WAITING = sql<number>`(${prCommitApprovals.approvedAt} IS NULL)::int`;
const AT = sql`CASE WHEN ${prCommitApprovals.approvedAt} IS NULL THEN ${prCommitApprovals.requestedAt} ELSE ${prCommitApprovals.approvedAt} END`;
const LISTED = [WAITING, AT, sql`${prCommitApprovals.repositoryKey}`, sql`${prCommitApprovals.commitSha}`];

/** A list page's key, as `commitApprovalsPage` reads and answers it. */
export const CommitKey = [z.int().min(0).max(1), KeyTime, z.string().max(300), CommitSha] as const;

/** A page of the organization's fork commits, waiting ones first, each group newest first, after `after`'s key. */
export const commitApprovalsPage = (tx: Tx, orgId: string, after: readonly [number, string, string, string] | null, limit: number) =>
  tx
    .select({ ...COLUMNS, waiting: WAITING, keyAt: sql<string>`${AT}::text`, repositoryKey: prCommitApprovals.repositoryKey })
    .from(prCommitApprovals)
    .where(and(eq(prCommitApprovals.orgId, orgId), keyset(LISTED, after, "desc")))
    .orderBy(...LISTED.map((column) => desc(column)))
    .limit(limit);

/** Approves one commit of a repository the caller's organization claims; an approval already given stays as it was. */
export async function approveCommit(
  tx: Tx,
  orgId: string,
  actor: { actorPersonId: string; actorLabel: string },
  approval: { repository: string; commit: string; pullRequest: number | null },
): Promise<CommitApproval> {
  const [inserted] = await tx
    .insert(prCommitApprovals)
    .values({
      orgId,
      repository: approval.repository,
      commitSha: approval.commit,
      pullRequest: approval.pullRequest,
      approvedAt: sql`now()`,
      approvedBy: actor.actorPersonId,
      approvedByLabel: actor.actorLabel,
    })
    .onConflictDoUpdate({
      target: KEY,
      set: {
        approvedAt: sql`COALESCE(${prCommitApprovals.approvedAt}, now())`,
        approvedBy: sql`COALESCE(${prCommitApprovals.approvedBy}, EXCLUDED.approved_by)`,
        approvedByLabel: sql`COALESCE(${prCommitApprovals.approvedByLabel}, EXCLUDED.approved_by_label)`,
        pullRequest: sql`COALESCE(${prCommitApprovals.pullRequest}, EXCLUDED.pull_request)`,
      },
    })
    .returning({ ...COLUMNS, fresh: sql<boolean>`${prCommitApprovals.approvedAt} = now()` });
  const row = inserted!;
  if (row.fresh) {
    await appendAudit(tx, {
      orgId,
      action: "pull_request_commit.approved",
      actorPersonId: actor.actorPersonId,
      actorLabel: actor.actorLabel,
      target: `${row.repository}@${row.commitSha}`,
      data: { repository: row.repository, commit: row.commitSha, pullRequest: row.pullRequest, headRepository: row.headRepository },
    });
  }
  return toApproval(row);
}
