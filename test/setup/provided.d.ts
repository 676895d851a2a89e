// What test/setup/global.ts hands the tests through `provide`/`inject`.
import type { TestDatabase } from "./bindings";

declare module "vitest" {
  export interface ProvidedContext {
    workerBindings: Record<string, string>;
    database: TestDatabase;
    /** The .sql migrations on disk, by name. */
    migrationNames: string[];
    /** wrangler.toml's Cron Triggers (crons of [triggers]). */
    cronTriggers: string[];
    /** The fake code host's address (fakes/codehost): its API and its /_fake/ control routes. */
    codehostBase: string;
    /** The fake mail provider (fakes/mail.ts). */
    mailBase: string;
    /** The fake billing provider (fakes/billing): its API and its /_fake/ control routes. */
    billingBase: string;
    /** The fake model providers (fakes/model-providers) and analytics vendor (fakes/analytics.ts). */
    modelProviders: { messages: string; chat: string; analytics: string };
  }
}
