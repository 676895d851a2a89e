// Monthly spend caps per provider, and the proxy's reservations against them. Money is counted in
// micro-dollars (1e-6 US dollars): a price in dollars per million tokens is micro-dollars per token.
import { and, eq, sql } from "drizzle-orm";
import { providerBudgets, providerSpend } from "../../db/schema/providers";
import type { Tx } from "../../db/transaction";
import { appendAudit } from "../audit";
import type { Grant } from "../auth";
import { Refusal } from "../http/refusal";
import type { Provider } from "./names";

export interface BudgetSummary {
  monthlyCapUsd: number;
  /** The current month (UTC), `YYYY-MM`. */
  month: string;
  spentUsd: number;
  /** Worst-case cost of requests in flight (and of any whose answer never reported usage). */
  reservedUsd: number;
  /** What answers cost past the cap this month, beyond what they reserved (0 while the budget held). */
  overrunUsd: number;
}

const CURRENT_MONTH = sql`date_trunc('month', now() AT TIME ZONE 'UTC')::date`;

export const usd = (micros: number | string) => Number(micros) / 1e6;
export const micros = (dollars: number) => Math.round(dollars * 1e6);

export async function setBudget(tx: Tx, grant: Grant, provider: Provider, monthlyCapUsd: number): Promise<void> {
  await tx
    .insert(providerBudgets)
    .values({ orgId: grant.orgId, provider, monthlyCapMicros: micros(monthlyCapUsd) })
    .onConflictDoUpdate({
      target: [providerBudgets.orgId, providerBudgets.provider],
      set: { monthlyCapMicros: sql`EXCLUDED.monthly_cap_micros`, updatedAt: sql`now()` },
    });
  await appendAudit(tx, {
    orgId: grant.orgId,
    action: "provider_budget.set",
    actorPersonId: grant.personId,
    actorLabel: grant.actorLabel,
    data: { provider, monthlyCapUsd },
  });
}

export async function budgetSummaries(tx: Tx, orgId: string): Promise<Map<Provider, BudgetSummary>> {
  // bigint sums come back as text; `usd` reads either.
  const rows = await tx
    .select({
      provider: providerBudgets.provider,
      monthlyCapMicros: providerBudgets.monthlyCapMicros,
      month: sql<string>`to_char(${CURRENT_MONTH}, 'YYYY-MM')`,
      spentMicros: sql<string>`COALESCE(${providerSpend.spentMicros}, 0)`,
      reservedMicros: sql<string>`COALESCE(${providerSpend.reservedMicros}, 0)`,
      overrunMicros: sql<string>`COALESCE(${providerSpend.overrunMicros}, 0)`,
    })
    .from(providerBudgets)
    .leftJoin(
      providerSpend,
      and(eq(providerSpend.orgId, providerBudgets.orgId), eq(providerSpend.provider, providerBudgets.provider), eq(providerSpend.month, CURRENT_MONTH)),
    )
    .where(eq(providerBudgets.orgId, orgId));
  return new Map(
    rows.map((row) => [
      row.provider,
      {
        monthlyCapUsd: usd(row.monthlyCapMicros),
        month: row.month,
        spentUsd: usd(row.spentMicros),
        reservedUsd: usd(row.reservedMicros),
        overrunUsd: usd(row.overrunMicros),
      },
    ]),
  );
}

/** A reservation the proxy holds until the answer's usage is known. */
export interface Reservation {
  orgId: string;
  provider: Provider;
  /** The month it was made in (`YYYY-MM-01`): it is settled there even if the answer ends in the next. */
  month: string;
  micros: number;
}

/**
 * Reserves `amount` micro-dollars of this month's budget, or refuses. The one conditional UPDATE is the
 * whole decision: concurrent reservations queue on the month's row and each sees the others' sums.
 */
export async function reserve(tx: Tx, orgId: string, provider: Provider, amount: number): Promise<Reservation> {
  await tx.insert(providerSpend).values({ orgId, provider, month: CURRENT_MONTH }).onConflictDoNothing();
  const { rows } = await tx.execute<{
    month: string;
  }>(sql`UPDATE provider_spend s SET reserved_micros = s.reserved_micros + ${amount}, requests = s.requests + 1
     FROM provider_budgets b
     WHERE s.org_id = ${orgId} AND s.provider = ${provider} AND s.month = ${CURRENT_MONTH}
       AND b.org_id = s.org_id AND b.provider = s.provider
       AND s.spent_micros + s.reserved_micros + ${amount} <= b.monthly_cap_micros
     RETURNING to_char(s.month, 'YYYY-MM-DD') AS month`);
  if (rows[0]) return { orgId, provider, month: rows[0].month, micros: amount };
  throw await refusal(tx, orgId, provider, amount);
}

async function refusal(tx: Tx, orgId: string, provider: Provider, amount: number): Promise<Refusal> {
  const budget = (await budgetSummaries(tx, orgId)).get(provider);
  const dollars = (value: number) => `$${value.toFixed(value < 0.01 && value > 0 ? 6 : 2)}`;
  if (!budget) {
    return new Refusal(
      "budget_exceeded",
      `This organization has no monthly budget for ${provider}, so the proxy forwards nothing to it; an owner sets one (PUT /console/api/providers/${provider}/budget).`,
    );
  }
  if (budget.spentUsd >= budget.monthlyCapUsd) {
    return new Refusal(
      "budget_exceeded",
      `The ${provider} budget for ${budget.month} is used up (${dollars(budget.spentUsd)} spent of ${dollars(budget.monthlyCapUsd)}` +
        `${budget.overrunUsd > 0 ? `, ${dollars(budget.overrunUsd)} of it past the cap by answers that used more than they reserved` : ""}). ` +
        "The proxy forwards nothing more this month unless an owner raises the budget.",
    );
  }
  return new Refusal(
    "budget_exceeded",
    `This request could cost up to ${dollars(usd(amount))}, more than is left of the ${provider} budget for ${budget.month} ` +
      `(${dollars(budget.monthlyCapUsd)}, of which ${dollars(budget.spentUsd)} is spent and ${dollars(budget.reservedUsd)} reserved). ` +
      "Ask for fewer output tokens, or an owner raises the budget.",
  );
}

/**
 * Replaces the reservation by what the answer cost (0 for a refused request). What was spent is
 * spent: the charge is recorded whole even when it takes the month past its cap. The part of it
 * beyond both the reservation and the cap is added to the month's overrun and audited; the month's
 * spend then stands above the cap, so `reserve` refuses every further request.
 */
export async function settle(tx: Tx, reservation: Reservation, charged: number): Promise<void> {
  const { rows } = await tx.execute<{
    overrun: string;
    spent_micros: string;
    cap: string | null;
  }>(sql`WITH cap AS (SELECT monthly_cap_micros FROM provider_budgets WHERE org_id = ${reservation.orgId} AND provider = ${reservation.provider})
     UPDATE provider_spend s SET reserved_micros = GREATEST(s.reserved_micros - ${reservation.micros}, 0), spent_micros = s.spent_micros + ${charged},
       overrun_micros = s.overrun_micros + GREATEST(LEAST(${charged}::bigint - ${reservation.micros}::bigint, s.spent_micros + ${charged} + GREATEST(s.reserved_micros - ${reservation.micros}, 0) - (SELECT monthly_cap_micros FROM cap)), 0)
     WHERE s.org_id = ${reservation.orgId} AND s.provider = ${reservation.provider} AND s.month = ${reservation.month}::date
     RETURNING GREATEST(LEAST(${charged}::bigint - ${reservation.micros}::bigint, s.spent_micros + s.reserved_micros - (SELECT monthly_cap_micros FROM cap)), 0) AS overrun,
       s.spent_micros, (SELECT monthly_cap_micros FROM cap) AS cap`);
  const row = rows[0];
  if (!row || Number(row.overrun) === 0) return;
  await appendAudit(tx, {
    orgId: reservation.orgId,
    action: "provider_budget.overrun",
    actorLabel: "model proxy",
    data: {
      provider: reservation.provider,
      month: reservation.month.slice(0, 7),
      overrunUsd: usd(row.overrun),
      spentUsd: usd(row.spent_micros),
      monthlyCapUsd: usd(row.cap ?? 0),
    },
  });
}
