// Proposals and the current files in SQL. Every query runs in a transaction acting as the
// organization (row-level security), and names it too.
import { and, desc, eq, sql } from "drizzle-orm";
import { changeProposals, policyFiles } from "../../db/schema/proposals";
import type { Tx } from "../../db/transaction";
import { keyset } from "../http/paging";
import { listClaims } from "../repository-claims";
import { repositoryKey } from "../http/repository-name";
import { INITIAL_EGRESS, renderEgressBlock, type EgressPolicy } from "./egress";

/**
 * A proposal as it is read: the table's columns under their SQL names, since the data export hands
 * `toProposal` the rows of its own `SELECT *` (exports.ts).
 */
export const PROPOSAL = {
  id: changeProposals.id,
  kind: changeProposals.kind,
  repository: changeProposals.repository,
  summary: changeProposals.summary,
  content: changeProposals.content,
  policy: sql<EgressPolicy | null>`${changeProposals.policy}`,
  previous_content: changeProposals.previousContent,
  loosens: changeProposals.loosens,
  loosened: sql<string[]>`${changeProposals.loosened}`,
  state: changeProposals.state,
  proposed_by: changeProposals.proposedBy,
  proposed_by_label: changeProposals.proposedByLabel,
  proposed_at: changeProposals.proposedAt,
  decided_by_label: changeProposals.decidedByLabel,
  decided_at: changeProposals.decidedAt,
  decision_note: changeProposals.decisionNote,
  pr_state: changeProposals.prState,
  pr_attempts: changeProposals.prAttempts,
  pr_branch: changeProposals.prBranch,
  pr_number: changeProposals.prNumber,
  pr_url: changeProposals.prUrl,
  pr_refusal: changeProposals.prRefusal,
  pr_refusal_status: changeProposals.prRefusalStatus,
  pr_attempted_at: changeProposals.prAttemptedAt,
};

const selectProposals = (tx: Tx) => tx.select(PROPOSAL).from(changeProposals);
export type ProposalRow = Awaited<ReturnType<typeof selectProposals>>[number];

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** A proposal as the console and the data export show it. */
export function toProposal(row: ProposalRow, viewer?: string) {
  return {
    id: row.id,
    kind: row.kind,
    repository: row.repository,
    path: FILE_OF[row.kind],
    summary: row.summary,
    /** The masking file, or the egress block, as the pull request commits it. */
    content: row.content,
    policy: row.policy,
    previousContent: row.previous_content,
    /** Egress: the change allows something the policy in force denied; `loosened` says what. */
    loosens: row.loosens,
    loosened: row.loosened,
    state: row.state,
    proposedBy: row.proposed_by_label,
    proposedAt: row.proposed_at.toISOString(),
    /** Whether the person asking proposed it (nobody approves their own proposal). */
    mine: viewer !== undefined && row.proposed_by === viewer,
    decidedBy: row.decided_by_label,
    decidedAt: iso(row.decided_at),
    decisionNote: row.decision_note,
    pullRequest: {
      state: row.pr_state,
      attempts: row.pr_attempts,
      branch: row.pr_branch,
      number: row.pr_number,
      url: row.pr_url,
      refusal: row.pr_refusal,
      refusalStatus: row.pr_refusal_status,
      attemptedAt: iso(row.pr_attempted_at),
    },
  };
}
export type Proposal = ReturnType<typeof toProposal>;

export async function findProposal(tx: Tx, orgId: string, kind: ProposalKind, id: string, lock = false): Promise<ProposalRow | null> {
  const query = selectProposals(tx).where(and(eq(changeProposals.orgId, orgId), eq(changeProposals.kind, kind), eq(changeProposals.id, id)));
  const [row] = lock ? await query.for("update") : await query;
  return row ?? null;
}

/** A page of the organization's proposals of one kind, newest first, after `after`'s key (index change_proposals_org). */
export const proposalsPage = (tx: Tx, orgId: string, kind: ProposalKind, after: readonly [string, string] | null, limit: number) =>
  tx
    .select({ ...PROPOSAL, keyAt: sql<string>`${changeProposals.proposedAt}::text` })
    .from(changeProposals)
    .where(
      and(
        eq(changeProposals.orgId, orgId),
        eq(changeProposals.kind, kind),
        keyset([sql`${changeProposals.proposedAt}`, sql`${changeProposals.id}`], after, "desc"),
      ),
    )
    .orderBy(desc(changeProposals.proposedAt), desc(changeProposals.id))
    .limit(limit);

export interface CurrentFile {
  kind: ProposalKind;
  path: string;
  /** The masking file, or the egress block, in force: the content of the latest approved proposal. */
  content: string;
  policy: EgressPolicy | null;
  proposalId: string | null;
  updatedAt: string | null;
}

export async function currentFile(tx: Tx, orgId: string, kind: ProposalKind): Promise<CurrentFile> {
  const [row] = await tx
    .select({
      content: policyFiles.content,
      policy: sql<EgressPolicy | null>`${policyFiles.policy}`,
      proposalId: policyFiles.proposalId,
      updatedAt: policyFiles.updatedAt,
    })
    .from(policyFiles)
    .where(and(eq(policyFiles.orgId, orgId), eq(policyFiles.kind, kind)));
  if (!row) {
    return kind === "masking"
      ? { kind, path: FILE_OF.masking, content: "", policy: null, proposalId: null, updatedAt: null }
      : { kind, path: FILE_OF.egress, content: renderEgressBlock(INITIAL_EGRESS), policy: INITIAL_EGRESS, proposalId: null, updatedAt: null };
  }
  return { kind, path: FILE_OF[kind], content: row.content, policy: row.policy, proposalId: row.proposalId, updatedAt: row.updatedAt.toISOString() };
}

export async function setCurrentFile(tx: Tx, orgId: string, proposal: ProposalRow): Promise<void> {
  await tx
    .insert(policyFiles)
    .values({ orgId, kind: proposal.kind, content: proposal.content, policy: proposal.policy, proposalId: proposal.id })
    .onConflictDoUpdate({
      target: [policyFiles.orgId, policyFiles.kind],
      set: { content: sql`EXCLUDED.content`, policy: sql`EXCLUDED.policy`, proposalId: sql`EXCLUDED.proposal_id`, updatedAt: sql`now()` },
    });
}

export type RepositoryChoice = { ok: true; repository: string } | { ok: false; missing: boolean; message: string };

/**
 * Which repository a proposal lands in: the one named, if the organization holds a live claim on it;
 * unnamed, the organization's only live claim. The claim is what ties a repository to one organization.
 */
export async function chooseRepository(tx: Tx, orgId: string, named: string | undefined): Promise<RepositoryChoice> {
  const live = (await listClaims(tx, orgId)).filter((claim) => !claim.revokedAt).map((claim) => claim.repository);
  if (named !== undefined) {
    const found = live.find((repository) => repositoryKey(repository) === repositoryKey(named));
    return found
      ? { ok: true, repository: found }
      : { ok: false, missing: false, message: `This organization holds no live claim on ${named}; claim it first, or name one of its claimed repositories.` };
  }
  if (live.length === 1) return { ok: true, repository: live[0]! };
  if (live.length === 0) {
    return {
      ok: false,
      missing: true,
      message: "This organization has claimed no repository, so there is nowhere to open the pull request; claim the repository with the CLI first.",
    };
  }
  return { ok: false, missing: false, message: `This organization has claimed several repositories (${live.join(", ")}); name the one the change belongs in.` };
}

// Where the proposals land in the repository: the masking file, read by the engine as it is, and the
// project configuration file, whose top-level `egress:` block the egress policy is.
export const MASKING_FILE = ".svc/masking.yml";
export const PROJECT_CONFIGURATION_FILE = ".svc/config.yml";

export type ProposalKind = "masking" | "egress";

export const FILE_OF: Record<ProposalKind, string> = { masking: MASKING_FILE, egress: PROJECT_CONFIGURATION_FILE };
