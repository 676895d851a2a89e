// masking.* (masking.edit, masking.approve) and network.* (network.edit, network.approve): proposals
// to change the masking file or the egress policy, decided by someone other than their author, and
// opened as pull requests in the organization's claimed repository; and the files in force, which any
// member may read.
import * as z from "zod";
import type { Permission } from "../shared/permissions";
import { RepositoryName } from "../http/repository-name";
import { decodeCursor, KeyTime, KeyUuid, pageOf, pagingUpTo } from "../http/paging";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import { approve, propose, reject, retryPullRequest } from "./decide";
import { EgressPolicy } from "./egress";
import { type ProposalKind, chooseRepository, currentFile, findProposal, proposalsPage, toProposal } from "./store";
import { replayDecisions } from "./replay";
import { inOrganization, router } from "../trpc/builder";
import type { Tx } from "../../db/transaction";

/** The masking file as the engine reads it, kept as it is. */
export const MASKING_FILE_MAX = 65_536;

const Summary = text({ min: 1, max: 200 }).describe("One line saying what the change does; the pull request's title.");
const Note = text({ max: 1000 }).optional().describe("Why, as the approver or rejecter sees it.");
const ProposalId = z.object({ proposalId: z.uuid() });
const Where = z.object({
  repository: RepositoryName.optional().describe("A repository the organization has claimed; unnamed, its only claimed repository."),
});

async function repositoryFor(tx: Tx, orgId: string, named: string | undefined): Promise<string> {
  const choice = await chooseRepository(tx, orgId, named);
  if (choice.ok) return choice.repository;
  throw new Refusal(choice.missing ? "repository_not_claimed" : "invalid_request", choice.message);
}

// A proposal carries its content and the content it replaces (up to 64 KiB each): pages stay at most 100.
const PROPOSALS_PAGE_MAX = 100;

function proposalProcedures(kind: ProposalKind, decide: Permission, word: string) {
  const current = inOrganization
    .meta({ permission: null, gate: "gated", summary: `The ${word} in force (the latest approved proposal's content), as the pull request commits it` })
    .query(({ ctx }) => ctx.transaction((tx) => currentFile(tx, ctx.org.id, kind)));

  const proposals = inOrganization
    .meta({ permission: null, gate: "gated", summary: `${word} proposals, newest first, with their decision and pull request (paged)` })
    .input(z.object({ ...pagingUpTo(PROPOSALS_PAGE_MAX) }))
    .query(({ ctx, input }) =>
      ctx.transaction(async (tx) =>
        pageOf(
          await proposalsPage(tx, ctx.org.id, kind, decodeCursor(input.cursor, [KeyTime, KeyUuid]), input.limit + 1),
          input.limit,
          (row) => [row.keyAt, row.id],
          (row) => toProposal(row, ctx.actor.actorPersonId),
        ),
      ),
    );

  const approveProcedure = inOrganization
    .meta({ permission: decide, gate: "gated", summary: `Approve a ${word} proposal (never one's own) and open it as a pull request` })
    .input(ProposalId.extend({ note: Note }))
    .mutation(async ({ ctx, input }) =>
      toProposal(
        await approve(ctx.transaction, ctx.org.id, ctx.actor, ctx.config.codehost, kind, input.proposalId, input.note ?? null),
        ctx.actor.actorPersonId,
      ),
    );

  const rejectProcedure = inOrganization
    .meta({ permission: decide, gate: "gated", summary: `Reject a ${word} proposal` })
    .input(ProposalId.extend({ note: Note }))
    .mutation(({ ctx, input }) =>
      ctx.transaction(async (tx) => toProposal(await reject(tx, ctx.org.id, ctx.actor, kind, input.proposalId, input.note ?? null), ctx.actor.actorPersonId)),
    );

  const openPullRequest = inOrganization
    .meta({ permission: decide, gate: "gated", summary: `Open an approved ${word} proposal's pull request again after the code host refused it` })
    .input(ProposalId)
    .mutation(async ({ ctx, input }) =>
      toProposal(await retryPullRequest(ctx.transaction, ctx.org.id, ctx.actor, ctx.config.codehost, kind, input.proposalId), ctx.actor.actorPersonId),
    );

  return { current, proposals, approve: approveProcedure, reject: rejectProcedure, openPullRequest };
}

const masking = proposalProcedures("masking", "masking.approve", "masking file");
const network = proposalProcedures("egress", "network.approve", "egress policy");

const proposeMasking = inOrganization
  .meta({ permission: "masking.edit", gate: "gated", summary: "Propose a new masking file (the whole text, as the engine reads it)" })
  .input(Where.extend({ summary: Summary, content: text({ max: MASKING_FILE_MAX }).describe("The whole masking file, kept exactly as sent.") }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const repository = await repositoryFor(tx, ctx.org.id, input.repository);
      return toProposal(
        await propose(tx, ctx.org.id, ctx.actor, { kind: "masking", repository, summary: input.summary, content: input.content }),
        ctx.actor.actorPersonId,
      );
    }),
  );

const proposeEgress = inOrganization
  .meta({ permission: "network.edit", gate: "gated", summary: "Propose a new egress policy; one that allows what was denied is marked as loosening" })
  .input(Where.extend({ summary: Summary, policy: EgressPolicy }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const repository = await repositoryFor(tx, ctx.org.id, input.repository);
      return toProposal(
        await propose(tx, ctx.org.id, ctx.actor, { kind: "egress", repository, summary: input.summary, policy: input.policy }),
        ctx.actor.actorPersonId,
      );
    }),
  );

export const maskingRouter = router({ ...masking, propose: proposeMasking });
const effect = inOrganization
  .meta({
    permission: null,
    gate: "gated",
    summary: "An egress proposal's effect before approval: the last 30 days' network decisions replayed against it, what it would newly allow and deny",
  })
  .input(ProposalId)
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const proposal = await findProposal(tx, ctx.org.id, "egress", input.proposalId);
      if (!proposal?.policy) throw new Refusal("not_found", "No such egress proposal in this organization.");
      return replayDecisions(tx, ctx.org.id, proposal.policy);
    }),
  );

export const networkRouter = router({ ...network, propose: proposeEgress, effect });
