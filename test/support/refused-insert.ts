// A database failure provoked through a real route: while `work` runs, a check constraint (added by
// the superuser, dropped after) refuses any token named with `marker`. PostgreSQL's error then quotes
// the row, marker and token hash included, in its message and detail: what must not be logged.
import { expect } from "vitest";
import type { Captured } from "./logs";
import { asRole } from "./sql";

export async function whileTokenNamesRefused<T>(marker: string, work: (constraint: string) => Promise<T>): Promise<T> {
  if (!/^[a-z0-9-]+$/.test(marker)) throw new Error("The marker goes into DDL: letters, digits and dashes only.");
  const constraint = `test_refuses_${marker.replace(/-/g, "_")}`;
  await asRole("superuser", (client) => client.query(`ALTER TABLE tokens ADD CONSTRAINT ${constraint} CHECK (position('${marker}' in name) = 0) NOT VALID`));
  try {
    return await work(constraint);
  } finally {
    await asRole("superuser", (client) => client.query(`ALTER TABLE tokens DROP CONSTRAINT ${constraint}`));
  }
}

/**
 * The failure's log line says where and what (request id, route or procedure, error class, SQLSTATE,
 * constraint, our own frames) and nothing of the request: not the marker, no token value or hash, no
 * row detail, no query parameters.
 */
export function expectDiagnosableLine(logs: Captured, event: string, expected: Record<string, unknown>, marker: string): void {
  expect(logs.event(event)).toMatchObject({
    ...expected,
    errorClass: ["DrizzleQueryError", "DatabaseError"],
    sqlState: "23514",
    frames: expect.arrayContaining([expect.stringMatching(/worker\/tokens\/issue\.ts/)]),
  });
  expect(logs.text).not.toContain(marker);
  for (const leak of [/svc_(eng|cli|ses)_/, /\b[0-9a-f]{64}\b/, /Failing row/i, /params:/i, /insert into/i]) expect(logs.text).not.toMatch(leak);
}
