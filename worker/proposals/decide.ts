// The steps of a proposal, each audited: propose, approve (never one's own), reject, and opening the
// pull request (at approval, and again on request after a refusal). Approving makes the proposal's
// content the organization's current file. The pull request is asked for after the decision commits
// and recorded in a transaction of its own: no transaction waits on the code host.
import { and, eq, sql } from "drizzle-orm";
import { changeProposals } from "../../db/schema/proposals";
import type { Transaction, Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import type { CodehostConfig } from "../config/types";
import { Refusal } from "../http/refusal";
import { sha256Hex } from "../http/hash";
import { loosenedBy, renderEgressBlock, type EgressPolicy } from "./egress";
import { type ProposalKind, PROPOSAL, currentFile, findProposal, setCurrentFile, type ProposalRow } from "./store";
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
  const [inserted] = await tx
    .insert(changeProposals)
    .values({
      orgId,
      kind: proposal.kind,
      repository: proposal.repository,
      summary: proposal.summary,
      content,
      policy: proposal.policy ?? null,
      previousContent: current.content,
      loosens: loosened.length > 0,
      loosened,
      proposedBy: actor.actorPersonId,
      proposedByLabel: actor.actorLabel,
    })
    .returning(PROPOSAL);
  const row = inserted!;
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
    const [recorded] = await tx
      .update(changeProposals)
      .set({
        prState: outcome.state,
        prAttempts: sql`${changeProposals.prAttempts} + 1`,
        prAttemptedAt: sql`now()`,
        prBranch: outcome.branch,
        prNumber: opened ? outcome.number : null,
        prUrl: opened ? outcome.url : null,
        prRefusal: opened ? null : outcome.refusal,
        prRefusalStatus: opened ? null : outcome.status,
      })
      .where(and(eq(changeProposals.orgId, orgId), eq(changeProposals.id, row.id)))
      .returning(PROPOSAL);
    const updated = recorded!;
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
    const [decided] = await tx
      .update(changeProposals)
      .set({
        state: "approved",
        decidedBy: actor.actorPersonId,
        decidedByLabel: actor.actorLabel,
        decidedAt: sql`now()`,
        decisionNote: note,
        loosens: loosened.length > 0,
        loosened,
      })
      .where(and(eq(changeProposals.orgId, orgId), eq(changeProposals.id, id)))
      .returning(PROPOSAL);
    const approved = decided!;
    await setCurrentFile(tx, orgId, approved);
    await audit(tx, orgId, actor, approved, "approved", note ? { note } : {});
    return approved;
  });
  return recordPullRequest(transaction, orgId, actor, codehost, approved);
}

export async function reject(tx: Tx, orgId: string, actor: Actor, kind: ProposalKind, id: string, note: string | null): Promise<ProposalRow> {
  await undecided(tx, orgId, kind, id);
  const [decided] = await tx
    .update(changeProposals)
    .set({ state: "rejected", decidedBy: actor.actorPersonId, decidedByLabel: actor.actorLabel, decidedAt: sql`now()`, decisionNote: note })
    .where(and(eq(changeProposals.orgId, orgId), eq(changeProposals.id, id)))
    .returning(PROPOSAL);
  await audit(tx, orgId, actor, decided!, "rejected", note ? { note } : {});
  return decided!;
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
