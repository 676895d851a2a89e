// Shapes of the provider-key routes (browser and CLI alike): what an organization holds, never a key.
import * as z from "zod";
import { storable } from "../http/text";
import { ProviderName } from "./names";

export const StoreKeyRequest = z
  .strictObject({
    key: storable(
      z.string().min(8, "must be at least 8 characters").max(512, "must be at most 512 characters").regex(/^\S+$/, "must not contain whitespace"),
    ).describe("The provider's API key. Sealed on arrival; never shown again beyond its last four characters."),
  })
  .meta({ id: "StoreProviderKeyRequest" });

export const SetBudgetRequest = z
  .strictObject({
    monthlyCapUsd: z
      .number()
      .min(0)
      .max(1_000_000)
      .describe("The most the proxy may spend with this provider per calendar month (UTC), in US dollars; 0 stops it."),
  })
  .meta({ id: "SetProviderBudgetRequest" });

const KeySummary = z.strictObject({
  lastFour: z.string().describe("The key's last four characters: all that is ever shown of it."),
  sealedUnder: z.string().describe("The sealing key version it is stored under."),
  createdAt: z.iso.datetime(),
});

const BudgetSummary = z.strictObject({
  monthlyCapUsd: z.number(),
  month: z.string().describe("The current month (UTC), YYYY-MM."),
  spentUsd: z.number().describe("What answers this month reported using, at the configured prices."),
  reservedUsd: z.number().describe("The worst-case cost of requests in flight."),
  overrunUsd: z
    .number()
    .describe(
      "What answers cost past the cap this month beyond what they reserved; above 0, the month's spend stands above its cap and the proxy refuses every request.",
    ),
});

export const ProviderState = z
  .strictObject({
    provider: ProviderName,
    key: KeySummary.nullable().describe("Null: no key stored; the proxy refuses requests for this provider."),
    budget: BudgetSummary.nullable().describe("Null: no budget set; the proxy refuses requests for this provider."),
  })
  .meta({ id: "ProviderState" });

export const ProviderList = z.strictObject({ providers: z.array(ProviderState) }).meta({ id: "ProviderList" });

export const StoredKey = z
  .strictObject({ provider: ProviderName, key: KeySummary, replaced: z.boolean().describe("True when a previous key was revoked by this one.") })
  .meta({ id: "StoredProviderKey" });

export const RevokedKey = z.strictObject({ provider: ProviderName, revoked: z.literal(true) }).meta({ id: "RevokedProviderKey" });

export const BudgetSet = z.strictObject({ provider: ProviderName, budget: BudgetSummary }).meta({ id: "ProviderBudget" });

export const ProviderPath = z.object({ provider: ProviderName });

export const OrgQuery = z.object({ orgId: z.uuid().describe("The organization whose providers these are.") });
