// What every procedure sees: the database, configuration, the session cookie (resolved by the
// signedIn middleware in its authorization transaction), the CSRF header, and the authority that
// finds and authorizes callers. Plumbing: the composition root makes it (worker/rpc/context.ts) from
// the capabilities that own sessions, permissions, the plan gate and the live channel.
import type { Role } from "../../db/schema";
import type { Connection, Scope, Tx } from "../../db/transaction";
import type { Config } from "../config/types";
import type { Env } from "../env";
import type { LiveSession } from "../http/caller";
import type { GateSide } from "../http/context";
import type { LiveTopic } from "../shared/live";
import type { Permission } from "../shared/permissions";

export interface RpcContext {
  connect: () => Promise<Connection>;
  config: Config;
  env: Env;
  /** The svc_session cookie's value, if any. */
  sessionToken: string | null;
  csrfHeader: string | undefined;
  requestId: string;
  /** The public origin, for links in what procedures send (invitations). */
  origin: string;
  /** The svc_operator_session cookie's value, if any (the operator portal's admin.* procedures). */
  operatorToken: string | null;
  /** Work that may finish after the answer (ending the operator pool, recording a failure). */
  waitUntil: (work: Promise<unknown>) => void;
  /** A caller that is no browser (worker/mcp's tool calls); when set, the session cookie is not read. */
  bearer?: RpcBearer;
  authority: RpcAuthority;
}

/** What the procedure builder (builder.ts) asks of the capabilities that know callers. */
export interface RpcAuthority {
  /** The live browser session whose cookie value is `token` (stored as `tokenHash`), as `tx` sees it; null when none. */
  findSession: (tx: Tx, token: string, tokenHash: string) => Promise<LiveSession | null>;
  /** Refuses a change that does not carry the session's CSRF token. */
  checkCsrf: (sessionToken: string, header: string | undefined) => Promise<void>;
  /**
   * In `tx`: that the person is a member of `orgId` (another organization answers exactly like a
   * missing one) whose role holds `permission` (null: any member), then the plan gate on `side`.
   */
  authorize: (tx: Tx, personId: string, orgId: string, permission: Permission | null, side: GateSide) => Promise<Grant>;
  /** After a change committed, tells the organization's open consoles that `topic` changed. */
  publish: (orgId: string, topic: LiveTopic) => Promise<void>;
}

/** A member's standing in an organization, as `authorize` found it. */
export interface Grant {
  role: Role;
  personId: string;
  /** Who acts, as the audit log records it. */
  actorLabel: string;
  /** A console may be watching the organization live: a change is worth telling. */
  watched: boolean;
}

/**
 * A credential that acts for one person in one organization (a model-context-protocol access token).
 * `key` names the lookups every transaction of the call carries (so row-level security shows the
 * credential) and how to find the live credential in one; null when it is unknown, expired or revoked.
 */
export interface RpcBearer {
  key: () => Promise<{
    lookups: NonNullable<Scope["lookups"]>;
    find: (tx: Tx) => Promise<{ personId: string; orgId: string; credentialId: string } | null>;
  }>;
}
