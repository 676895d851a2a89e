// Signed-in people for the browser tests, made through the service's own functions (the sign-in
// through the code host itself is tested in test/signin).
import type { Role } from "../../db/schema";
import { sql } from "drizzle-orm";
import { inject } from "vitest";
import { inTransaction } from "../../db/transaction";
import { upsertCodehostPerson } from "../../worker/people/store";
import { beginSession } from "../../worker/sessions/store";
import { call } from "./http";
import { appPool } from "./sql";

let nextAccountId = Math.floor(Math.random() * 1e9);

export async function seedPerson(login: string, memberships: Array<{ orgId: string; role: Role }> = [], database = inject("database")): Promise<string> {
  const pool = appPool(database);
  try {
    const id = await upsertCodehostPerson(pool.connect, { id: ++nextAccountId, login, name: login, email: null, avatarUrl: null });
    for (const { orgId, role } of memberships) {
      await inTransaction(pool.connect, { orgId }, (tx) =>
        tx.execute(sql`INSERT INTO memberships (org_id, person_id, role, role_source) VALUES (${orgId}, ${id}, ${role}, 'manual')`),
      );
    }
    return id;
  } finally {
    await pool.end();
  }
}

export async function seedSession(personId: string, database = inject("database")): Promise<string> {
  const pool = appPool(database);
  try {
    return await beginSession(pool.connect, { id: personId, label: "test" }, { address: null, userAgent: "test" }, "test");
  } finally {
    await pool.end();
  }
}

/** A browser holding a session cookie; `csrf` fetches the token as a page would. */
export function browser(sessionToken: string) {
  const cookie = `svc_session=${sessionToken}`;
  const request = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    call(path, { ...init, headers: { ...(init.headers as Record<string, string>), cookie } });
  return {
    get: (path: string) => request(path),
    csrf: async () => ((await (await request("/auth/session")).json()) as { csrfToken: string }).csrfToken,
    post: (path: string, json: unknown, csrf?: string) => request(path, { method: "POST", json, headers: csrf ? { "x-svc-csrf": csrf } : {} }),
  };
}
