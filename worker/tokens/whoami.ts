// GET /v1/cli/whoami: what a CLI token is: the person it acts for, its organization, their role now,
// the scopes it was granted and those that role still allows, and when it expires. `svc whoami`
// shows it; it never answers the token's value.
import { eq } from "drizzle-orm";
import * as z from "zod";
import { ROLES } from "../../db/enums";
import { organizations } from "../../db/schema/organizations";
import { people } from "../../db/schema/people";
import { tokens } from "../../db/schema/tokens";
import { asCliToken } from "../auth";
import { effectiveScopes } from "../auth";
import { refusal, route, serverFailure } from "../openapi/declaration";

export const CliIdentity = z
  .strictObject({
    tokenId: z.uuid(),
    person: z.strictObject({ id: z.uuid(), login: z.string().nullable().describe("The code-host login (null for a person known only by email).") }),
    organization: z.strictObject({ id: z.uuid(), slug: z.string() }),
    role: z.enum(ROLES).describe("The person's role in the organization now."),
    scopes: z.array(z.string()).describe("The permissions the token was granted when its person approved the sign-in."),
    effectiveScopes: z.array(z.string()).describe("The granted scopes the person's current role still holds: what the token may do now."),
    expiresAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "CliIdentity" });

export const whoami = route({
  method: "get",
  path: "/v1/cli/whoami",
  operationId: "cliWhoami",
  summary: "What the CLI token is: its person, organization, role, granted and effective scopes, expiry",
  description: "CLI token; any scope. A token whose person left the organization, or that expired or was revoked, is 401.",
  tag: "tokens",
  security: ["cliToken"],
  gate: "reachable",
  // Not in /openapi.json: the spec lists the operations it carries, and this is not one of them.
  published: false,
  responses: {
    200: { description: "The token's identity", schema: CliIdentity },
    401: refusal("Not a valid CLI token (unknown, expired, revoked, or its person is no longer a member)"),
    403: refusal("The organization is suspended"),
    500: serverFailure,
  },
  handler: async (c, { reply }) => {
    const identity = await asCliToken(c, null, async (tx, grant) => {
      const [row] = await tx
        .select({ scopes: tokens.scopes, expiresAt: tokens.expiresAt, login: people.login, slug: organizations.slug })
        .from(tokens)
        .innerJoin(organizations, eq(organizations.id, tokens.orgId))
        .leftJoin(people, eq(people.id, tokens.personId))
        .where(eq(tokens.id, grant.tokenId));
      return { grant, row: row! };
    });
    const { grant, row } = identity;
    return reply(200, {
      tokenId: grant.tokenId,
      person: { id: grant.personId, login: row.login },
      organization: { id: grant.orgId, slug: row.slug },
      role: grant.role,
      scopes: row.scopes,
      effectiveScopes: effectiveScopes(grant.role, row.scopes),
      expiresAt: row.expiresAt?.toISOString() ?? null,
    });
  },
});
