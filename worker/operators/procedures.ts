// The operator portal's procedures (admin.*): only for an operator session (a customer session gets
// 403, none 401), refused naming SVC_ADMIN_DATABASE_URL while it is unset, left out of /openapi.json.
// Reads across organizations run as the operator role in a transaction of their own (ctx.admin); a
// change to one organization runs as the application role acting for it, audited in its log.
import { desc, eq, sql } from "drizzle-orm";
import * as z from "zod";
import { organizations } from "../../db/schema/organizations";
import { siteApplications, siteLeads } from "../../db/schema/site";
import { inTenant, inTransaction, type Transaction, type Tx } from "../../db/transaction";
import { changePlan } from "../billing";
import { PLANS } from "../../db/enums";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import type { RpcContext } from "../trpc/context";
import { procedure, router, type ProcedureMeta } from "../trpc/builder";
import { checkCsrf } from "../sessions";
import { CUSTOMER_SESSION, identifyOperator, openAdminPool, PORTAL_OFF, SIGN_IN_AS_OPERATOR } from "./access";
import { listFailureGroups } from "./failure-groups";
import { endChannels, SUSPENDED } from "../live-channel";
import { liftSuspension, suspendOrganization, type SuspensionOutcome } from "./suspension";

/** `admin` opens a transaction as the operator role. */
export type OperatorContext = RpcContext & { operator: { id: string; login: string }; admin: Transaction };

const REFUSED = {
  off: () => new Refusal("operator_portal_off", PORTAL_OFF),
  customer: () => new Refusal("forbidden", CUSTOMER_SESSION),
  none: () => new Refusal("unauthenticated", SIGN_IN_AS_OPERATOR),
} as const;

/** An operator session, found in a short transaction as the operator role; mutations also need x-svc-csrf. */
const asOperator = procedure.use(async ({ ctx, type, next }) => {
  const pool = openAdminPool(ctx.config);
  try {
    const found = await identifyOperator(pool, { operator: ctx.operatorToken, customer: ctx.sessionToken }, ctx.connect);
    if (typeof found === "string") throw REFUSED[found]();
    if (type === "mutation") await checkCsrf(found.session.token, ctx.csrfHeader);
    const operator = { id: found.session.operatorId, login: found.session.login };
    // A non-null pool: identifyOperator answered "off" without one.
    const admin: Transaction = (work) => inTransaction(pool!.connect, {}, work);
    return await next({ ctx: { ...ctx, operator, admin } satisfies OperatorContext });
  } finally {
    if (pool) ctx.waitUntil(pool.end());
  }
});

// Operators act on every organization, whatever its plan.
const meta = (summary: string) => ({ permission: null, gate: "reachable", operator: true, summary }) satisfies ProcedureMeta;

const OrganizationInput = z.object({ organizationId: z.uuid().describe("The organization acted on.") }).strict();

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** Why the operator suspends: required, and shown as written to the organization's members. */
const SuspensionReason = text({ min: 1, max: 500 })
  .regex(/\S/, "must not be blank")
  .describe("Why the organization is suspended, as its members will read it in the console.");

const InquiriesInput = z
  .object({ limit: z.int().min(1).max(500).default(100) })
  .strict()
  .default({ limit: 100 });

function answer(outcome: SuspensionOutcome) {
  if (outcome.outcome === "not_found") throw new Refusal("not_found", "No organization has that id.");
  if (outcome.outcome === "deletion") {
    throw new Refusal("state_conflict", "This organization is suspended because its deletion was requested; an owner lifts it by calling the deletion off.");
  }
  return { suspended: outcome.suspended, changed: outcome.outcome === "changed" };
}

export const adminRouter = router({
  overview: asOperator.meta(meta("Who is signed in, the licence state and what the portal may do here")).query(({ ctx }) => ({
    operator: ctx.operator.login,
    licence: ctx.config.enterprise?.licence.state ?? null,
    planSettable: ctx.config.billing.operatorSetsPlan,
    failureStore: ctx.config.failures.store,
    failureRetentionDays: ctx.config.failures.retentionDays,
  })),

  organizations: asOperator
    .meta(meta("Organizations across tenants: plan, members, suspension and usage; searched by slug or name"))
    .input(
      z
        .object({ search: text({ max: 100 }).optional(), limit: z.int().min(1).max(200).default(50) })
        .strict()
        .default({ limit: 50 }),
    )
    .query(async ({ ctx, input }) => {
      const search = input.search?.trim() || null;
      const { rows } = await ctx.admin((tx) =>
        tx.execute<{
          id: string;
          slug: string;
          name: string;
          plan: string;
          suspended_at: Date | null;
          suspended_reason: string | null;
          suspended_because: string | null;
          created_at: Date;
          members: number;
          environments: number;
          events30d: number;
        }>(sql`SELECT o.id, o.slug, o.name, o.plan, o.suspended_at, o.suspended_reason, o.suspended_because, o.created_at,
                (SELECT count(*) FROM memberships m WHERE m.org_id = o.id)::int AS members,
                (SELECT count(*) FROM environments e WHERE e.org_id = o.id)::int AS environments,
                (SELECT count(*) FROM events ev WHERE ev.org_id = o.id AND ev.occurred_at > now() - interval '30 days')::int AS "events30d"
         FROM organizations o
         WHERE ${search}::text IS NULL OR position(lower(${search}) IN lower(o.slug)) > 0 OR position(lower(${search}) IN lower(o.name)) > 0
         ORDER BY o.created_at DESC, o.id LIMIT ${input.limit}`),
      );
      return {
        organizations: rows.map((row) => ({
          id: row.id,
          slug: row.slug,
          name: row.name,
          plan: row.plan,
          members: row.members,
          suspended: row.suspended_at !== null,
          suspendedAt: iso(row.suspended_at),
          suspendedReason: row.suspended_reason,
          suspendedBecause: row.suspended_because,
          createdAt: row.created_at.toISOString(),
          usage: { environments: row.environments, events30d: row.events30d },
        })),
      };
    }),

  suspend: asOperator
    .meta(
      meta(
        "Suspends an organization for a reason its members read in the console (ingestion and new engine work refused with 403 and retryAfterSeconds; command claims still work); audited in its log",
      ),
    )
    .input(OrganizationInput.extend({ reason: SuspensionReason }))
    .mutation(async ({ ctx, input }) => {
      const outcome = await suspendOrganization(ctx.connect, input.organizationId, ctx.operator, input.reason.trim());
      // Its consoles' live channels close (opening one is refused while it lasts).
      if (outcome.outcome === "changed") await endChannels(ctx.env, input.organizationId, "everyone", SUSPENDED);
      return answer(outcome);
    }),

  liftSuspension: asOperator
    .meta(meta("Lifts an operator's suspension of an organization; audited in its log"))
    .input(OrganizationInput)
    .mutation(async ({ ctx, input }) => answer(await liftSuspension(ctx.connect, input.organizationId, ctx.operator))),

  setPlan: asOperator
    .meta(meta("Sets an organization's plan where the operator decides plans (SVC_OPERATOR_SETS_PLAN=1); audited and kept in its billing history"))
    .input(OrganizationInput.extend({ plan: z.enum(PLANS) }))
    .mutation(async ({ ctx, input }) => {
      if (!ctx.config.billing.operatorSetsPlan) {
        throw new Refusal("not_configured", "Plans here come from the billing provider; the operator sets plans only where SVC_OPERATOR_SETS_PLAN=1.");
      }
      return inTenant(ctx.connect, input.organizationId, async (tx) => {
        const found = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, input.organizationId));
        if (found.length === 0) throw new Refusal("not_found", "No organization has that id.");
        const changed = await changePlan(tx, {
          orgId: input.organizationId,
          to: input.plan,
          source: "operator",
          actor: { personId: null, label: `operator ${ctx.operator.login}` },
          note: "set in the operator portal",
        });
        return { plan: changed.to, from: changed.from, changed: changed.changed };
      });
    }),

  failures: asOperator
    .meta(meta("The own-failure store: groups of unexpected failures with counts, first and last seen and a redacted sample"))
    .query(async ({ ctx }) => ({ groups: await ctx.admin(listFailureGroups) })),

  leads: asOperator
    .meta(meta("Enterprise contact requests sent through the site's form (POST /v1/leads), newest first"))
    .input(InquiriesInput)
    .query(async ({ ctx, input }) => ({ leads: await ctx.admin((tx) => listInquiries(tx, "leads", input.limit)) })),

  applications: asOperator
    .meta(meta("Applications sent through the site's form (POST /v1/applications), newest first"))
    .input(InquiriesInput)
    .query(async ({ ctx, input }) => ({ applications: await ctx.admin((tx) => listInquiries(tx, "applications", input.limit)) })),

  operators: asOperator.meta(meta("The operators and when each last signed in")).query(async ({ ctx }) => {
    const { rows } = await ctx.admin((tx) =>
      tx.execute<{
        id: string;
        login: string;
        created_at: Date;
        last_sign_in: Date | null;
      }>(sql`SELECT o.id, o.login, o.created_at, (SELECT max(s.created_at) FROM operator_sessions s WHERE s.operator_id = o.id) AS last_sign_in
       FROM operators o ORDER BY lower(o.login)`),
    );
    return { operators: rows.map((row) => ({ id: row.id, login: row.login, createdAt: row.created_at.toISOString(), lastSignInAt: iso(row.last_sign_in) })) };
  }),
});

// What visitors sent through the site's forms (POST /v1/leads, POST /v1/applications): write-only for
// the Worker, read here by operators only, as the operator role (db/migrations/0019_leads.sql).
const l = siteLeads;
const a = siteApplications;
const QUERIES = {
  leads: (admin: Tx, limit: number) =>
    admin
      .select({
        id: l.id,
        name: l.name,
        email: l.email,
        company: l.company,
        role: l.role,
        teamSize: l.teamSize,
        message: l.message,
        sourceOrigin: l.sourceOrigin,
        receivedAt: l.receivedAt,
      })
      .from(l)
      .orderBy(desc(l.receivedAt), l.id)
      .limit(limit),
  applications: (admin: Tx, limit: number) =>
    admin
      .select({
        id: a.id,
        name: a.name,
        email: a.email,
        company: a.company,
        codehostLogin: a.codehostLogin,
        teamSize: a.teamSize,
        useCase: a.useCase,
        sourceOrigin: a.sourceOrigin,
        receivedAt: a.receivedAt,
      })
      .from(a)
      .orderBy(desc(a.receivedAt), a.id)
      .limit(limit),
} as const;

/** The newest `limit` rows of one form, newest first. */
export async function listInquiries<F extends keyof typeof QUERIES>(admin: Tx, form: F, limit: number) {
  type Row = Awaited<ReturnType<(typeof QUERIES)[F]>>[number];
  const rows = (await QUERIES[form](admin, limit)) as Row[];
  return rows.map((row): Omit<Row, "receivedAt"> & { receivedAt: string } => ({ ...row, receivedAt: row.receivedAt.toISOString() }));
}
