// overview.gettingStarted and overview.summary (environments.view: every member): the console's first
// pages. Each step and item is derived from the rows as they are, never from a stored flag; what the
// caller's role may not open is answered as null. One transaction each, no network call inside it.
import * as z from "zod";
import type { Role } from "../../db/enums";
import { identityAudience } from "../codehost";
import { STANDARD_WORKFLOW, standardWorkflowText } from "../environments";
import { budgetSummaries } from "../providers";
import { text } from "../http/text";
import { inOrganization, router } from "../trpc/builder";
import { roleAllows, type Permission } from "../shared/permissions";
import { activityDays, spendDays } from "./activity";
import { environmentsAtAGlance, installationsWithRepositories, lastReported, latestFailures, liveClaims, openWorkloadRuns, planAndDeletion } from "./store";

/** `read()` when the role holds `permission`, else null: the answer carries only what the role may see. */
const ifAllowed = async <T>(role: Role, permission: Permission, read: () => Promise<T>): Promise<T | null> => (roleAllows(role, permission) ? read() : null);

const gettingStarted = inOrganization
  .meta({
    permission: "environments.view",
    gate: "gated",
    summary:
      "Getting started: the App's installations, the address workflows report to, the claims that let them exchange identity, the first environment reported",
  })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const installations = await installationsWithRepositories(tx, ctx.org.id);
      // Claims are the tokens.manage holders' to see (the claims page); the others see only whether one works.
      const claims = await liveClaims(tx, ctx.org.id);
      const connected = await lastReported(tx, ctx.org.id);
      const installed = installations.some((installation) => !installation.suspended);
      const controlPlaneUrl = identityAudience(ctx.config, ctx.origin);
      return {
        /** The address a workflow reports to and requests identity tokens for (its SVC_CONTROL_PLANE). */
        controlPlaneUrl,
        /** The workflow file the console's dispatches start (environments.create's default), and its text with that address. */
        workflowFile: STANDARD_WORKFLOW,
        workflowText: standardWorkflowText(controlPlaneUrl),
        installUrl: ctx.config.codehost.installUrl,
        installations,
        claims: roleAllows(ctx.org.role, "tokens.manage") ? claims : null,
        connected,
        steps: {
          installed,
          // A workflow shows itself by exchanging its identity (a claim used) or by reporting.
          workflowAdded: connected !== null || claims.some((claim) => claim.lastUsedAt !== null),
          // The exchange works through a proven claim, or an installation on the repository's owner creates one.
          identity: installed || claims.some((claim) => claim.proven),
          reported: connected !== null,
        },
      };
    }),
  );

const summary = inOrganization
  .meta({
    permission: "environments.view",
    gate: "gated",
    summary: "The organization at a glance: environments by state and expiring soon, latest failures, open workload runs, spend, plan, deletion",
  })
  .query(({ ctx }) =>
    ctx.transaction(async (tx) => {
      const { role, id } = ctx.org;
      const environments = await environmentsAtAGlance(tx, id);
      const failures = await latestFailures(tx, id);
      const workloadRuns = await ifAllowed(role, "workloads.view", () => openWorkloadRuns(tx, id));
      // Spend and budgets are on the model provider keys page (tokens.manage).
      const spend = await ifAllowed(role, "tokens.manage", async () =>
        [...(await budgetSummaries(tx, id))].map(([provider, budget]) => ({ provider, ...budget })),
      );
      const { plan, suspended, deletion } = await planAndDeletion(tx, id);
      return {
        environments,
        failures,
        workloadRuns,
        spend,
        plan,
        suspended,
        /** A deletion under way: the owners' (organization.delete), as its status is. */
        deletion: roleAllows(role, "organization.delete") ? deletion : null,
      };
    }),
  );

const activity = inOrganization
  .meta({
    permission: "environments.view",
    gate: "gated",
    summary: "The last 30 days (UTC), a day at a time: events, runs by outcome, failed verdicts, workload runs, and model spend against the budget",
  })
  .input(z.object({ envId: text({ min: 1, max: 200 }).optional().describe("One environment's days; without it, the organization's.") }))
  .query(({ ctx, input }) =>
    ctx.transaction(async (tx) => ({
      days: await activityDays(tx, ctx.org.id, input.envId ?? null),
      // Spend is the organization's, the model provider keys page's (tokens.manage).
      spend: input.envId ? null : await ifAllowed(ctx.org.role, "tokens.manage", () => spendDays(tx, ctx.org.id)),
    })),
  );

export const overviewRouter = router({ gettingStarted, summary, activity });
