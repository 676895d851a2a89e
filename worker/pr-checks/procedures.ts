// pullRequests.commits and pullRequests.approveCommit (tokens.manage): fork pull-request commits
// waiting for a maintainer, and approving one exact commit (spec: Authentication rule 10).
//
// Why tokens.manage: approving a commit lets a workflow run of code written outside the organization
// obtain a credential of the organization (a commit credential) and write a check in its repository.
// That is the same kind of grant as a repository claim, which rule 7 puts under tokens.manage because
// it grants the ability to mint credentials; and it leaves the decision to owners and admins, the
// spec's maintainers, not to every member who can start work.
import * as z from "zod";
import { Refusal } from "../http/refusal";
import { RepositoryName } from "../codehost/repository";
import { approveCommit, listCommitApprovals } from "./approvals";
import { CommitSha } from "./schemas";
import { chooseRepository } from "../proposals/store";
import { inOrganization, router } from "../rpc/trpc";

const commits = inOrganization
  .meta({ permission: "tokens.manage", gate: "gated", summary: "Fork pull-request commits: those waiting for approval first, then those approved" })
  .input(z.object({ limit: z.int().min(1).max(200).default(50) }))
  .query(({ ctx, input }) => ctx.transaction((tx) => listCommitApprovals(tx, ctx.org.id, input.limit)));

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
