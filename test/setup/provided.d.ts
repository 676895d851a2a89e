// What test/setup/global.ts hands the tests through `provide`/`inject`.
import type { TestDatabase } from "./bindings";

declare module "vitest" {
  export interface ProvidedContext {
    workerBindings: Record<string, string>;
    database: TestDatabase;
    /** The .sql migrations on disk, by name. */
    migrationNames: string[];
  }
}
