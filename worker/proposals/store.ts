// Proposals and the current files in SQL. Every query runs in a transaction acting as the
// organization (row-level security), and names it too.
import type { Tx } from "../../db/transaction";
import { listClaims } from "../repository-claims/store";
import { repositoryKey } from "../codehost/repository";
import { INITIAL_EGRESS, renderEgressBlock, type EgressPolicy } from "./egress";

export interface ProposalRow {
  id: string;
  kind: ProposalKind;
  repository: string;
  summary: string;
  content: string;
  policy: EgressPolicy | null;
  previous_content: string;
  loosens: boolean;
  loosened: string[];
  state: "proposed" | "approved" | "rejected";
  proposed_by: string | null;
  proposed_by_label: string;
  proposed_at: Date;
  decided_by_label: string | null;
  decided_at: Date | null;
  decision_note: string | null;
  pr_state: "opened" | "refused" | null;
  pr_attempts: number;
  pr_branch: string | null;
  pr_number: number | null;
  pr_url: string | null;
  pr_refusal: string | null;
  pr_refusal_status: number | null;
  pr_attempted_at: Date | null;
}

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
  const { rows } = await tx.sql.query<ProposalRow>(`SELECT * FROM change_proposals WHERE org_id = $1 AND kind = $2 AND id = $3${lock ? " FOR UPDATE" : ""}`, [
    orgId,
    kind,
    id,
  ]);
  return rows[0] ?? null;
}

export async function listProposals(tx: Tx, orgId: string, kind: ProposalKind, before: string | null, limit: number): Promise<ProposalRow[]> {
  const { rows } = await tx.sql.query<ProposalRow>(
    `SELECT * FROM change_proposals WHERE org_id = $1 AND kind = $2 AND ($3::timestamptz IS NULL OR proposed_at < $3)
     ORDER BY proposed_at DESC, id LIMIT $4`,
    [orgId, kind, before, limit],
  );
  return rows;
}

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
  const { rows } = await tx.sql.query<{ content: string; policy: EgressPolicy | null; proposal_id: string | null; updated_at: Date }>(
    "SELECT content, policy, proposal_id, updated_at FROM policy_files WHERE org_id = $1 AND kind = $2",
    [orgId, kind],
  );
  const row = rows[0];
  if (!row) {
    return kind === "masking"
      ? { kind, path: FILE_OF.masking, content: "", policy: null, proposalId: null, updatedAt: null }
      : { kind, path: FILE_OF.egress, content: renderEgressBlock(INITIAL_EGRESS), policy: INITIAL_EGRESS, proposalId: null, updatedAt: null };
  }
  return { kind, path: FILE_OF[kind], content: row.content, policy: row.policy, proposalId: row.proposal_id, updatedAt: row.updated_at.toISOString() };
}

export async function setCurrentFile(tx: Tx, orgId: string, proposal: ProposalRow): Promise<void> {
  await tx.sql.query(
    `INSERT INTO policy_files (org_id, kind, content, policy, proposal_id) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (org_id, kind) DO UPDATE SET content = EXCLUDED.content, policy = EXCLUDED.policy, proposal_id = EXCLUDED.proposal_id, updated_at = now()`,
    [orgId, proposal.kind, proposal.content, proposal.policy === null ? null : JSON.stringify(proposal.policy), proposal.id],
  );
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
