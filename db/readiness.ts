// What /readyz asks of the database, in one round trip once connected: whether the login may serve
// (db/roles.ts) and whether every migration this version carries is applied. A newer schema is ready:
// during a gradual deployment or after a rollback the previous version runs on it (db/README.md).
import { LATEST_MIGRATION } from "./migrations/latest";
import { literal, statement } from "./pipeline";
import { LOGIN_CHECK, LoginRefused, refusalOf, type Role } from "./roles";
import { type Connection, inOneRoundTrip } from "./transaction";

const SCHEMA_CHECK = statement`SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE name = ${literal(LATEST_MIGRATION)}) AS current`;

export const SCHEMA_BEHIND = `The database's schema is behind this version: migration ${LATEST_MIGRATION} is not applied. Apply the migrations (docs/deploy.md).`;

/** Null when `role`'s login may serve and the schema is this version's or newer; otherwise a sentence saying why not. */
export async function unreadiness(connect: () => Promise<Connection>, role: Role): Promise<string | null> {
  try {
    return await inOneRoundTrip(connect, {
      scope: { first: LOGIN_CHECK },
      last: SCHEMA_CHECK,
      result: (login, schema) => refusalOf(role, login[0])?.message ?? (schema[0]?.current === true ? null : SCHEMA_BEHIND),
    });
  } catch (error) {
    if (error instanceof LoginRefused) return error.message;
    throw error;
  }
}
