// pullRequests.commits and pullRequests.approveCommit (tokens.manage): fork pull-request commits
// waiting for a maintainer, and approving one exact commit (spec: Authentication rule 10).
//
// Why tokens.manage: approving a commit lets a workflow run of code written outside the organization
// obtain a credential of the organization (a commit credential) and write a check in its repository.
// That is the same kind of grant as a repository claim, which rule 7 puts under tokens.manage because
// it grants the ability to mint credentials; and it leaves the decision to owners and admins, the
// spec's maintainers, not to every member who can start work.
import * as z from "zod";
import { decodeCursor, Paging, pageOf } from "../http/paging";
import { Refusal } from "../http/refusal";
import { RepositoryName } from "../http/repository-name";
import { approveCommit, CommitKey, commitApprovalsPage, toApproval } from "./approvals";
import { CommitSha } from "./schemas";
import { chooseRepository } from "../proposals";
import { inOrganization, router } from "../trpc/builder";

const commits = inOrganization
  .meta({
    permission: "tokens.manage",
    gate: "gated",
    summary: "Fork pull-request commits: those waiting for approval first, then those approved, each newest first (paged)",
  })
  .input(z.object({ ...Paging }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) =>
      pageOf(
        await commitApprovalsPage(tx, ctx.org.id, decodeCursor(input.cursor, CommitKey), input.limit + 1),
        input.limit,
        (row) => [row.waiting, row.keyAt, row.repositoryKey, row.commitSha],
        toApproval,
      ),
    ),
  );

const approve = inOrganization
  .meta({ permission: "tokens.manage", gate: "gated", summary: "Approve one exact fork commit so that its pull-request check may report; no other commit" })
  .input(
    z.object({
      repository: RepositoryName.describe("A repository the organization has claimed."),
      commit: CommitSha,
      pullRequest: z.int().min(1).max(2_147_483_647).optional(),
    }),
  )
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const choice = await chooseRepository(tx, ctx.org.id, input.repository);
      if (!choice.ok) throw new Refusal("not_found", choice.message);
      return approveCommit(tx, ctx.org.id, ctx.actor, { repository: choice.repository, commit: input.commit, pullRequest: input.pullRequest ?? null });
    }),
  );

export const pullRequestsRouter = router({ commits, approveCommit: approve });
