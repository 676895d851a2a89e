// The steps of a proposal, each audited: propose, approve (never one's own), reject, and opening the
// pull request (at approval, and again on request after a refusal). Approving makes the proposal's
// content the organization's current file. The pull request is asked for after the decision commits
// and recorded in a transaction of its own: no transaction waits on the code host.
import type { Transaction, Tx } from "../../db/transaction";
import { appendAudit } from "../audit/append";
import type { CodehostConfig } from "../config/types";
import { Refusal } from "../http/refusal";
import { sha256Hex } from "../tokens/secret";
import { loosenedBy, renderEgressBlock, type EgressPolicy } from "./egress";
import { type ProposalKind, currentFile, findProposal, setCurrentFile, type ProposalRow } from "./store";
import { openPullRequest } from "./pull-request";

export interface Actor {
  actorPersonId: string;
  actorLabel: string;
}

/** Audit actions: `masking.proposed`, `egress.approved`, `egress.pull_request_refused`, ... */
const action = (kind: ProposalKind, step: string) => `${kind}.${step}`;

async function audit(tx: Tx, orgId: string, actor: Actor, row: ProposalRow, step: string, data: Record<string, unknown> = {}) {
  await appendAudit(tx, {
    orgId,
    action: action(row.kind, step),
    actorPersonId: actor.actorPersonId,
    actorLabel: actor.actorLabel,
    target: row.id,
    data: {
      repository: row.repository,
      summary: row.summary,
      contentSha256: await sha256Hex(row.content),
      loosens: row.loosens,
      loosened: row.loosened,
      ...data,
    },
  });
}

export interface NewProposal {
  kind: ProposalKind;
  repository: string;
  summary: string;
  /** Masking: the whole file. */
  content?: string;
  /** Egress: the policy; its block is rendered from it. */
  policy?: EgressPolicy;
}

export async function propose(tx: Tx, orgId: string, actor: Actor, proposal: NewProposal): Promise<ProposalRow> {
  const current = await currentFile(tx, orgId, proposal.kind);
  const content = proposal.kind === "egress" ? renderEgressBlock(proposal.policy!) : proposal.content!;
  const loosened = proposal.kind === "egress" ? loosenedBy(current.policy!, proposal.policy!) : [];
  const { rows } = await tx.sql.query<ProposalRow>(
    `INSERT INTO change_proposals (org_id, kind, repository, summary, content, policy, previous_content, loosens, loosened, proposed_by, proposed_by_label)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [
      orgId,
      proposal.kind,
      proposal.repository,
      proposal.summary,
      content,
      proposal.policy ? JSON.stringify(proposal.policy) : null,
      current.content,
      loosened.length > 0,
      JSON.stringify(loosened),
      actor.actorPersonId,
      actor.actorLabel,
    ],
  );
  const row = rows[0]!;
  await audit(tx, orgId, actor, row, "proposed");
  return row;
}

const KIND_WORD: Record<ProposalKind, string> = { masking: "masking rule", egress: "egress policy" };

async function undecided(tx: Tx, orgId: string, kind: ProposalKind, id: string): Promise<ProposalRow> {
  const row = await findProposal(tx, orgId, kind, id, true);
  if (!row) throw new Refusal("not_found", `This organization has no such ${KIND_WORD[kind]} proposal.`);
  if (row.state !== "proposed") throw new Refusal("state_conflict", `This proposal was already ${row.state} by ${row.decided_by_label ?? "someone"}.`);
  return row;
}

async function recordPullRequest(transaction: Transaction, orgId: string, actor: Actor, codehost: CodehostConfig, row: ProposalRow): Promise<ProposalRow> {
  const outcome = await openPullRequest(transaction, codehost, {
    id: row.id,
    kind: row.kind,
    repository: row.repository,
    summary: row.summary,
    content: row.content,
    loosens: row.loosens,
    loosened: row.loosened,
    proposedBy: row.proposed_by_label,
    approvedBy: row.decided_by_label ?? actor.actorLabel,
  });
  const opened = outcome.state === "opened";
  return transaction(async (tx) => {
    const { rows } = await tx.sql.query<ProposalRow>(
      `UPDATE change_proposals SET pr_state = $3, pr_attempts = pr_attempts + 1, pr_attempted_at = now(), pr_branch = $4,
         pr_number = $5, pr_url = $6, pr_refusal = $7, pr_refusal_status = $8
       WHERE org_id = $1 AND id = $2 RETURNING *`,
      [
        orgId,
        row.id,
        outcome.state,
        outcome.branch,
        opened ? outcome.number : null,
        opened ? outcome.url : null,
        opened ? null : outcome.refusal,
        opened ? null : outcome.status,
      ],
    );
    const updated = rows[0]!;
    await audit(
      tx,
      orgId,
      actor,
      updated,
      opened ? "pull_request_opened" : "pull_request_refused",
      opened
        ? { number: outcome.number, branch: outcome.branch, attempt: updated.pr_attempts }
        : { refusal: outcome.refusal, status: outcome.status, attempt: updated.pr_attempts },
    );
    return updated;
  });
}

export async function approve(
  transaction: Transaction,
  orgId: string,
  actor: Actor,
  codehost: CodehostConfig,
  kind: ProposalKind,
  id: string,
  note: string | null,
): Promise<ProposalRow> {
  const approved = await transaction(async (tx) => {
    const row = await undecided(tx, orgId, kind, id);
    if (row.proposed_by === actor.actorPersonId) {
      throw new Refusal("forbidden", "Nobody approves their own proposal; another person with the approve permission must decide it.");
    }
    // Judged again against the policy in force now: another change may have been approved meanwhile.
    const loosened = kind === "egress" ? loosenedBy((await currentFile(tx, orgId, kind)).policy!, row.policy!) : [];
    const { rows } = await tx.sql.query<ProposalRow>(
      `UPDATE change_proposals SET state = 'approved', decided_by = $3, decided_by_label = $4, decided_at = now(), decision_note = $5,
         loosens = $6, loosened = $7
       WHERE org_id = $1 AND id = $2 RETURNING *`,
      [orgId, id, actor.actorPersonId, actor.actorLabel, note, loosened.length > 0, JSON.stringify(loosened)],
    );
    const approved = rows[0]!;
    await setCurrentFile(tx, orgId, approved);
    await audit(tx, orgId, actor, approved, "approved", note ? { note } : {});
    return approved;
  });
  return recordPullRequest(transaction, orgId, actor, codehost, approved);
}

export async function reject(tx: Tx, orgId: string, actor: Actor, kind: ProposalKind, id: string, note: string | null): Promise<ProposalRow> {
  await undecided(tx, orgId, kind, id);
  const { rows } = await tx.sql.query<ProposalRow>(
    `UPDATE change_proposals SET state = 'rejected', decided_by = $3, decided_by_label = $4, decided_at = now(), decision_note = $5
     WHERE org_id = $1 AND id = $2 RETURNING *`,
    [orgId, id, actor.actorPersonId, actor.actorLabel, note],
  );
  await audit(tx, orgId, actor, rows[0]!, "rejected", note ? { note } : {});
  return rows[0]!;
}

/** Tries again to open the pull request of an approved proposal whose last attempt was refused. */
export async function retryPullRequest(
  transaction: Transaction,
  orgId: string,
  actor: Actor,
  codehost: CodehostConfig,
  kind: ProposalKind,
  id: string,
): Promise<ProposalRow> {
  const row = await transaction(async (tx) => {
    const row = await findProposal(tx, orgId, kind, id);
    if (!row) throw new Refusal("not_found", `This organization has no such ${KIND_WORD[kind]} proposal.`);
    if (row.state !== "approved") throw new Refusal("state_conflict", `Only an approved proposal is opened as a pull request; this one is ${row.state}.`);
    if (row.pr_state === "opened") throw new Refusal("state_conflict", `The pull request is already open (#${row.pr_number}).`);
    return row;
  });
  // Two retries at once both ask the code host: every step of opening is safe to repeat (pull-request.ts).
  return recordPullRequest(transaction, orgId, actor, codehost, row);
}
