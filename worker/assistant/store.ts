// The assistant's usage rows (assistant_usage: person, UTC day): the count and reservation made
// before a model call, its settlement after, and a day's figures. The transaction must see the
// person's rows (the `person_id` lookup a session sets).
import { and, eq, sql } from "drizzle-orm";
import { assistantUsage } from "../../db/schema/assistant";
import type { Tx } from "../../db/transaction";
import { Refusal } from "../http/refusal";
import { DAILY_REQUESTS, DAILY_TOKENS, limitSentence, secondsUntilReset, utcDay, type DayUsage } from "./limits";

/** What one request holds until its answer's usage is known. */
export interface Reservation {
  personId: string;
  /** The day it counted in: settled there even when the answer ends after midnight. */
  day: string;
  tokens: number;
}

export async function dayUsage(tx: Tx, personId: string, day: string): Promise<DayUsage> {
  const [row] = await tx
    .select({ requests: assistantUsage.requests, usedTokens: assistantUsage.usedTokens, reservedTokens: assistantUsage.reservedTokens })
    .from(assistantUsage)
    .where(and(eq(assistantUsage.personId, personId), eq(assistantUsage.day, day)));
  return row
    ? { requests: row.requests, usedTokens: Number(row.usedTokens), reservedTokens: Number(row.reservedTokens) }
    : { requests: 0, usedTokens: 0, reservedTokens: 0 };
}

/**
 * Counts the request and reserves `bound` tokens of the day, or refuses (429 with Retry-After until
 * 00:00 UTC). The one conditional UPDATE decides: concurrent requests queue on the day's row, and
 * each sees the others' counts, so neither limit can be passed.
 */
export async function reserve(tx: Tx, personId: string, bound: number, now: Date): Promise<Reservation> {
  const day = utcDay(now);
  await tx.insert(assistantUsage).values({ personId, day }).onConflictDoNothing();
  const updated = await tx
    .update(assistantUsage)
    .set({ requests: sql`${assistantUsage.requests} + 1`, reservedTokens: sql`${assistantUsage.reservedTokens} + ${bound}` })
    .where(
      and(
        eq(assistantUsage.personId, personId),
        eq(assistantUsage.day, day),
        sql`${assistantUsage.requests} < ${DAILY_REQUESTS}`,
        sql`${assistantUsage.usedTokens} + ${assistantUsage.reservedTokens} + ${bound} <= ${DAILY_TOKENS}`,
      ),
    )
    .returning({ day: assistantUsage.day });
  if (updated.length) return { personId, day, tokens: bound };
  const seconds = secondsUntilReset(now);
  throw new Refusal("rate_limited", limitSentence(await dayUsage(tx, personId, day), bound, now), seconds);
}

/**
 * Replaces the reservation by the tokens the answer used. An answer that never reported its usage
 * keeps its whole reservation (`used` = the reservation); a request the provider refused or never
 * received gives its count back too (`counted` false).
 */
export async function settle(tx: Tx, reservation: Reservation, used: number, counted = true): Promise<void> {
  await tx
    .update(assistantUsage)
    .set({
      reservedTokens: sql`GREATEST(${assistantUsage.reservedTokens} - ${reservation.tokens}, 0)`,
      usedTokens: sql`${assistantUsage.usedTokens} + ${used}`,
      ...(counted ? {} : { requests: sql`GREATEST(${assistantUsage.requests} - 1, 0)` }),
    })
    .where(and(eq(assistantUsage.personId, reservation.personId), eq(assistantUsage.day, reservation.day)));
}
