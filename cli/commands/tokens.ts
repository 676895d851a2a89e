import { and, eq, sql } from "drizzle-orm";
import { memberships } from "../../db/schema/organizations";
import { people } from "../../db/schema/people";
import { parseArgs } from "node:util";
import { TOKEN_KINDS, type TokenKind } from "../../db/schema";
import { inTransaction, inTenant } from "../../db/transaction";
import { isPermission, type Permission } from "../../worker/shared/permissions";
import { findOrganizationId } from "../../worker/organizations/store";
import { issueToken, type IssueToken } from "../../worker/tokens/issue";
import { appendAudit } from "../../worker/audit/append";
import { nodePool } from "../../db/node-pool";
import { requireVariable, UsageError, type Command } from "../command";

/** Prints the new token alone on standard output, so it can be captured: `T=$(svc tokens create ...)`. */
export const tokens: Command = async (args, env) => {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      org: { type: "string" },
      kind: { type: "string" },
      scope: { type: "string", multiple: true },
      name: { type: "string" },
      person: { type: "string" },
    },
  });
  if (positionals[0] !== "create") throw new UsageError("tokens: expected `tokens create --org <slug> --kind engine|cli [--person <login>]`.");
  if (!values.org) throw new UsageError("tokens: --org <slug> is required.");
  if (!TOKEN_KINDS.includes(values.kind as TokenKind)) throw new UsageError("tokens: --kind is engine or cli.");
  const scopes = values.scope ?? [];
  const unknown = scopes.filter((scope) => !isPermission(scope));
  if (unknown.length) throw new UsageError(`tokens: unknown scope ${unknown.join(", ")}; scopes are permission names.`);
  if (values.kind === "engine" && (scopes.length || values.person)) throw new UsageError("tokens: --scope and --person apply to CLI tokens only.");
  // A CLI token acts for a member and is never stronger than their role.
  if (values.kind === "cli" && !values.person) throw new UsageError("tokens: a CLI token acts for a member: name them with --person <login>.");
  const kind = values.kind as TokenKind;

  const pool = nodePool(requireVariable(env, "SVC_DATABASE_URL"), "svc_app");
  try {
    const orgId = await inTransaction(pool.connect, { lookups: { org_slug: values.org } }, (tx) => findOrganizationId(tx, values.org!));
    if (!orgId) {
      console.error(`No organization has the slug "${values.org}".`);
      return 1;
    }
    const issued = await inTenant(pool.connect, orgId, async (tx) => {
      const name = values.name ?? `${kind} token`;
      let request: IssueToken = { orgId, kind: "engine", name };
      if (kind === "cli") {
        const [member] = await tx
          .select({ id: people.id })
          .from(people)
          .innerJoin(memberships, and(eq(memberships.personId, people.id), eq(memberships.orgId, orgId)))
          .where(eq(sql`lower(${people.login})`, sql`lower(${values.person!})`));
        if (!member) return null;
        request = { orgId, kind, name, personId: member.id, scopes: scopes as Permission[] };
      }
      const token = await issueToken(tx, request);
      await appendAudit(tx, { orgId, action: "token.created", actorLabel: "operator command line", target: token.id, data: { kind, scopes } });
      return token;
    });
    if (!issued) {
      console.error(`No member of ${values.org} has the login "${values.person}".`);
      return 1;
    }
    console.log(issued.token);
    return 0;
  } finally {
    await pool.end();
  }
};
