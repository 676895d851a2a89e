// Issuing a token: the value is returned once and only its hash is kept.
import type { TokenKind } from "../../db/enums";
import { tokens } from "../../db/schema/tokens";
import type { Tx } from "../../db/transaction";
import type { Permission } from "../shared/permissions";
import { displayPrefix, newTokenValue } from "./secret";
import { hashToken } from "../http/hash";
import { appendAudit } from "../audit";

interface Common {
  orgId: string;
  name: string;
  createdBy?: string | null;
}

export type IssueToken =
  | (Common & {
      kind: "engine";
      expiresAt?: Date | null;
      /** The repository claim an identity-exchange token is minted through. */
      bindingId?: string | null;
    })
  /** A CLI token acts for one person, with scopes never wider than their role; it expires. */
  | (Common & { kind: "cli"; personId: string; scopes: readonly Permission[] });

export async function issueToken(tx: Tx, request: IssueToken): Promise<{ id: string; token: string; createdAt: Date }> {
  const token = newTokenValue(request.kind satisfies TokenKind);
  const [row] = await tx
    .insert(tokens)
    .values({
      orgId: request.orgId,
      kind: request.kind,
      name: request.name,
      tokenHash: await hashToken(token),
      displayPrefix: displayPrefix(token),
      createdBy: request.createdBy ?? null,
      ...(request.kind === "cli"
        ? { personId: request.personId, scopes: [...request.scopes], expiresAt: cliTokenExpiry() }
        : { scopes: [], expiresAt: request.expiresAt ?? null, bindingId: request.bindingId ?? null }),
    })
    .returning({ id: tokens.id, createdAt: tokens.createdAt });
  return { id: row!.id, token, createdAt: row!.createdAt };
}

// How long a CLI token lives: a person renews it by signing in again with the device flow. Engine
// tokens made by a person have no lifetime (they run unattended); identity-exchange ones last 15
// minutes (worker/repository-claims/exchange.ts).
export const CLI_TOKEN_DAYS = 30;

export const cliTokenExpiry = (from = Date.now()) => new Date(from + CLI_TOKEN_DAYS * 24 * 3600 * 1000);

// Creating an engine token on a person's behalf (the CLI's POST /v1/tokens and the console's
// tokens.create): issued, audited, and answered once with its value.
export async function createEngineToken(tx: Tx, orgId: string, name: string, actor: { personId: string; label: string }) {
  const issued = await issueToken(tx, { orgId, kind: "engine", name, createdBy: actor.personId });
  await appendAudit(tx, {
    orgId,
    action: "token.created",
    actorPersonId: actor.personId,
    actorLabel: actor.label,
    target: issued.id,
    data: { kind: "engine", name },
  });
  return { id: issued.id, name, token: issued.token, createdAt: issued.createdAt.toISOString() };
}
