// Provider keys and budgets, on two surfaces that never share an endpoint: the console's
// `/console/api/providers...` (browser session, x-svc-csrf on changes, the organization named by the
// `orgId` query parameter) and the CLI's `/v1/providers...` (CLI token; its organization). Keys are
// credentials (tokens.manage); spending caps are billing.manage's.
import type { Hono } from "hono";
import type * as z from "zod";
import type { Tx } from "../../db/transaction";
import type { Grant } from "../auth";
import { asCliToken } from "../auth";
import type { Permission } from "../shared/permissions";
import type { AppContext, AppEnv } from "../http/context";
import { Refusal } from "../http/refusal";
import { refusal, register, route, serverFailure, type AnyRoute, type ResponseDoc, type Security } from "../openapi/declaration";
import { asSessionMember } from "../sessions";
import { budgetSummaries, setBudget } from "./budgets";
import { keySummaries, revokeKey, storeKey } from "./keys";
import { PROVIDERS, type Provider } from "./names";
import { BudgetSet, OrgQuery, ProviderList, ProviderPath, RevokedKey, SetBudgetRequest, StoredKey, StoreKeyRequest } from "./schemas";

type Work = (tx: Tx, grant: Grant) => Promise<unknown>;

interface Surface {
  base: string;
  security: Security;
  operationSuffix: string;
  who: string;
  query?: typeof OrgQuery;
  authority: (c: AppContext, query: z.output<typeof OrgQuery> | undefined, permission: Permission, work: Work) => Promise<unknown>;
  refusals: Record<number, ResponseDoc>;
}

const SURFACES: Surface[] = [
  {
    base: "/console/api/providers",
    security: "session",
    operationSuffix: "",
    who: "Browser session (x-svc-csrf on changes); the organization is the required `orgId` query parameter.",
    query: OrgQuery,
    authority: (c, query, permission, work) => asSessionMember(c, query!.orgId, permission, work),
    refusals: {
      401: refusal("No session"),
      403: refusal("The role lacks the permission, or no x-svc-csrf on a change"),
      404: refusal("No such organization (or not a member), or no such provider"),
    },
  },
  {
    base: "/v1/providers",
    security: "cliToken",
    operationSuffix: "WithCliToken",
    who: "CLI token; its organization.",
    authority: (c, _query, permission, work) => asCliToken(c, permission, work),
    refusals: {
      401: refusal("Not a valid CLI token"),
      403: refusal("The token lacks the scope (the message names the login command that fixes it), or the organization is suspended"),
      404: refusal("No such provider"),
    },
  },
];

interface Operation {
  method: "get" | "put" | "delete";
  suffix: string;
  permission: Permission;
  operationId: string;
  summary: string;
  body?: z.ZodType;
  success: ResponseDoc;
  more?: Record<number, ResponseDoc>;
  /** Method syntax: each operation narrows `body` to its own schema's output. */
  run(c: AppContext, tx: Tx, grant: Grant, input: { provider: Provider; body: unknown }): Promise<unknown>;
}

async function providerStates(tx: Tx, orgId: string) {
  const [keys, budgets] = await Promise.all([keySummaries(tx, orgId), budgetSummaries(tx, orgId)]);
  return PROVIDERS.map((provider) => ({ provider, key: keys.get(provider) ?? null, budget: budgets.get(provider) ?? null }));
}

const OPERATIONS: Operation[] = [
  {
    method: "get",
    suffix: "",
    permission: "tokens.manage",
    operationId: "listProviders",
    summary: "Which provider keys (last four characters at most) and monthly budgets the organization holds",
    success: { description: "Both providers, each with its key and budget or null", schema: ProviderList },
    run: async (_c, tx, grant) => ({ providers: await providerStates(tx, grant.orgId) }),
  },
  {
    method: "put",
    suffix: "/{provider}",
    permission: "tokens.manage",
    operationId: "storeProviderKey",
    summary: "Seal and store the provider's key (revoking the previous one)",
    body: StoreKeyRequest,
    success: { description: "Stored", schema: StoredKey },
    more: { 503: refusal("No sealing key configured (the message names SVC_PROVIDER_KEY_SECRET)") },
    run: async (c, tx, grant, { provider, body }: { provider: Provider; body: z.output<typeof StoreKeyRequest> }) => {
      const { replaced, ...summary } = await storeKey(tx, grant, c.var.config.providerKeys, provider, body.key);
      return { provider, key: summary, replaced };
    },
  },
  {
    method: "delete",
    suffix: "/{provider}",
    permission: "tokens.manage",
    operationId: "revokeProviderKey",
    summary: "Revoke the provider's key: the proxy refuses its requests until another is stored",
    success: { description: "Revoked", schema: RevokedKey },
    more: { 404: refusal("No key stored for the provider (or no such provider)") },
    run: async (_c, tx, grant, { provider }) => {
      if (!(await revokeKey(tx, grant, provider))) throw new Refusal("not_found", `This organization has no ${provider} key stored.`);
      return { provider, revoked: true };
    },
  },
  {
    method: "put",
    suffix: "/{provider}/budget",
    permission: "billing.manage",
    operationId: "setProviderBudget",
    summary: "Set the monthly spend cap (US dollars) the proxy enforces for the provider",
    body: SetBudgetRequest,
    success: { description: "The budget as it now stands this month", schema: BudgetSet },
    run: async (_c, tx, grant, { provider, body }: { provider: Provider; body: z.output<typeof SetBudgetRequest> }) => {
      await setBudget(tx, grant, provider, body.monthlyCapUsd);
      return { provider, budget: (await budgetSummaries(tx, grant.orgId)).get(provider)! };
    },
  },
];

const noSuchProvider = () => new Refusal("not_found", `No such provider; the providers are ${PROVIDERS.join(" and ")}.`);

export function registerProviderKeys(app: Hono<AppEnv>): void {
  for (const surface of SURFACES) {
    for (const operation of OPERATIONS) {
      register(
        app,
        route({
          method: operation.method,
          path: surface.base + operation.suffix,
          operationId: operation.operationId + surface.operationSuffix,
          summary: operation.summary,
          description: `${surface.who} Needs ${operation.permission}.`,
          tag: "providers",
          security: [surface.security],
          permission: operation.permission,
          gate: "gated",
          // Not among the operations the spec publishes (its payload shapes are not shown).
          published: false,
          ...(surface.query ? { query: surface.query } : {}),
          ...(operation.suffix ? { params: ProviderPath, paramsRefusal: noSuchProvider } : {}),
          ...(operation.body ? { body: operation.body } : {}),
          responses: {
            200: operation.success,
            ...surface.refusals,
            402: refusal("The organization's plan lacks the hosted control plane"),
            ...operation.more,
            500: serverFailure,
          },
          handler: async (c, { params, query, body, reply }) => {
            const provider = (params as { provider?: Provider } | undefined)?.provider as Provider;
            const answer = await surface.authority(c, query, operation.permission, (tx, grant) => operation.run(c, tx, grant, { provider, body }));
            return reply(200, answer as never);
          },
        }) as AnyRoute,
      );
    }
  }
}
