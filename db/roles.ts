// The roles the migrations create (NOLOGIN). A deployment connects with logins that are members of
// them, inheriting them or not, through a pooler that may run each transaction on another server
// connection: so every transaction takes its role itself (SET LOCAL ROLE), and nothing relies on a
// role, setting or lock outliving the transaction that made it (db/README.md, "Logins and roles").
import { type RawClient, send, statement, type Statement } from "./pipeline";

export type Role = "svc_app" | "svc_operator" | "svc_maintenance" | "svc_reseal";

/** The role a connection's transactions take, or null for a login that acts as itself (the migration owner, a test's superuser). */
export type Acting = Role | null;

/** What each transaction sends first, after BEGIN. */
export const TAKE_ROLE: Readonly<Record<Role, Statement>> = {
  svc_app: statement`SET LOCAL ROLE svc_app`,
  svc_operator: statement`SET LOCAL ROLE svc_operator`,
  svc_maintenance: statement`SET LOCAL ROLE svc_maintenance`,
  svc_reseal: statement`SET LOCAL ROLE svc_reseal`,
};

type Query = RawClient["query"];

const textOf = (config: unknown): string => (typeof config === "string" ? config : String((config as { text?: unknown } | null)?.text ?? ""));
const isControl = (text: string, words: readonly string[]) => words.includes(text.trim().replace(/;$/, "").toUpperCase());

/**
 * A connection for work that writes its own transactions (`sql\`BEGIN\`` ... `COMMIT`) or sends single
 * statements (the Cron Triggers' maintenance, the failure store): each BEGIN takes `role`, and a
 * statement sent outside a transaction runs in one of its own that takes it.
 */
export function takingRole<C extends RawClient>(client: C, role: Acting): C {
  if (role === null) return client;
  let open = false;
  const query = (async (config: unknown, params?: unknown[]) => {
    const text = textOf(config);
    if (isControl(text, ["BEGIN", "START TRANSACTION"])) {
      await send(client, statement`BEGIN; ${TAKE_ROLE[role]}`);
      open = true;
      return { rows: [], rowCount: null };
    }
    if (isControl(text, ["COMMIT", "ROLLBACK", "END", "ABORT"])) {
      open = false;
      return client.query(config as never, params);
    }
    if (open) return client.query(config as never, params);
    await send(client, statement`BEGIN; ${TAKE_ROLE[role]}`);
    try {
      const result = await client.query(config as never, params);
      await send(client, statement`COMMIT`);
      return result;
    } catch (error) {
      await send(client, statement`ROLLBACK`).catch(() => {});
      throw error;
    }
  }) as Query;
  return new Proxy(client, { get: (target, key) => (key === "query" ? query : Reflect.get(target, key)) });
}

/** The variable that names each role's login, for the sentences below. */
const VARIABLE: Readonly<Record<Role, string>> = {
  svc_app: "SVC_DATABASE_URL",
  svc_operator: "SVC_ADMIN_DATABASE_URL",
  svc_maintenance: "SVC_MAINTENANCE_DATABASE_URL",
  svc_reseal: "SVC_RESEAL_DATABASE_URL",
};

/** Roles whose logins must be confined by row-level security (the maintenance URL may be the owner's, the re-seal role's is not tenant work). */
export const CONFINED_ROLES: ReadonlySet<Acting> = new Set<Acting>(["svc_app", "svc_operator"]);

/**
 * What would take the login out of row-level security: the roles it is or may become (itself
 * included) that are superusers or BYPASSRLS, such as Neon's neon_superuser, which roles made in
 * Neon's console belong to; and the protected tables it owns or may act as the owner of.
 */
export const LOGIN_CHECK = statement`SELECT
  (SELECT string_agg(r.rolname, ', ' ORDER BY r.rolname) FROM pg_roles r
    WHERE (r.rolsuper OR r.rolbypassrls) AND pg_has_role(session_user, r.oid, 'MEMBER')) AS bypassing,
  (SELECT count(*) FROM pg_class c
    WHERE c.relkind IN ('r', 'p') AND c.relrowsecurity AND pg_has_role(session_user, c.relowner, 'MEMBER'))::int AS owned`;

/** A login that would serve every tenant's rows to anyone: refused, never served. */
export class LoginRefused extends Error {
  override readonly name = "LoginRefused";
}

/** Why the login LOGIN_CHECK answered for must not act as `role`, or null. */
export function refusalOf(role: Role, row: Record<string, unknown> | undefined): LoginRefused | null {
  const bypassing = typeof row?.bypassing === "string" ? row.bypassing : null;
  const owned = Number(row?.owned ?? 0);
  const variable = VARIABLE[role];
  if (bypassing) {
    return new LoginRefused(
      `${variable} names a login that bypasses row-level security (it is or may become ${bypassing}), so tenant isolation would be off. ` +
        "Create the login by SQL as a member of its role, not in Neon's console (docs/deploy.md).",
    );
  }
  if (owned > 0) {
    return new LoginRefused(
      `${variable} names a login that owns the protected tables, so it could turn row-level security off. Use a login that is a member of ${role} only (docs/deploy.md).`,
    );
  }
  return null;
}

/** Logins that passed LOGIN_CHECK in this isolate or process; a refused one is checked again next time, so fixing it needs no restart. */
const confinedLogins = new Set<string>();

/**
 * Throws LoginRefused when the login of `url` must not act as `role`; checked on its first connection
 * (one more round trip, once). A request that finds it unchecked checks it itself: workerd shares no
 * I/O across requests.
 */
export async function confine(raw: RawClient, role: Acting, url: string): Promise<void> {
  if (role === null || !CONFINED_ROLES.has(role) || confinedLogins.has(url)) return;
  const [rows] = await send(raw, LOGIN_CHECK);
  const refusal = refusalOf(role, rows?.[0]);
  if (refusal) throw refusal;
  confinedLogins.add(url);
}
