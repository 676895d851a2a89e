// The one place the environment becomes a typed config. It is pure: the Worker calls it at
// isolate start and the `config check` command calls it in a pipeline, with the same verdict.
import { readAnalytics } from "./analytics";
import { readBilling } from "./billing";
import { readCodehost } from "./codehost";
import { readDatabase } from "./database";
import { readEnterprise } from "./enterprise";
import { readMail } from "./mail";
import { readModelPrices } from "./model-prices";
import { readModelProviders } from "./model-providers";
import { EnvReader, listNames } from "./readers";
import { readEvents, readFailures } from "./retention";
import { readSealingKeys } from "./sealing-keys";
import { readServer } from "./server";
import { readSignIn } from "./signin";
import type { Config, ConfigError, ConfigResult, Edition } from "./types";
import { CONFIG_VARIABLES } from "./variables";

export type { Config, ConfigError, ConfigResult, Edition } from "./types";
export { CONFIG_VARIABLES } from "./variables";

export interface ParseOptions {
  /** The hosted control plane runs the enterprise entry point. */
  edition?: Edition;
  /** Milliseconds since the epoch for the licence's expiry; injectable so the function stays pure. */
  now?: number;
}

/** Reads every variable and collects every problem; non-string values (bindings) are ignored. */
export function parseConfig(env: Readonly<Record<string, unknown>>, options: ParseOptions = {}): ConfigResult {
  const edition = options.edition ?? "enterprise";
  const r = new EnvReader(env);
  const mail = readMail(r);
  const server = readServer(r, mail.magicLink?.publicUrl ?? null);
  const config: Config = {
    edition,
    build: { version: r.text("SVC_VERSION") ?? "dev", commit: r.text("SVC_COMMIT") ?? "unknown" },
    server,
    database: readDatabase(r),
    codehost: readCodehost(r),
    signIn: readSignIn(r),
    providerKeys: readSealingKeys(r),
    modelPrices: readModelPrices(r),
    modelProviders: readModelProviders(r),
    billing: readBilling(r),
    mail,
    events: readEvents(r),
    failures: readFailures(r),
    cmsModelApiKey: r.text("SVC_CMS_MODEL_API_KEY") ?? null,
    analytics: readAnalytics(r),
    enterprise: edition === "enterprise" ? readEnterprise(r, server.appBaseUrl, options.now ?? Date.now()) : null,
  };
  if (r.errors.length > 0) return { ok: false, errors: inTableOrder(r.errors), warnings: r.warnings };
  return { ok: true, config, warnings: r.warnings };
}

/** Sections are read in dependency order; operators read problems in the spec's table order. */
function inTableOrder(errors: ConfigError[]): ConfigError[] {
  const names: readonly string[] = CONFIG_VARIABLES;
  const position = (error: ConfigError) => names.indexOf(error.variable);
  return errors.toSorted((a, b) => position(a) - position(b));
}

/** The refusal printed when the Worker will not start and by `config check`: one line per problem. */
export function formatConfigErrors(errors: ConfigError[]): string {
  const variables = listNames([...new Set(errors.map((error) => error.variable))]);
  const header = `The configuration was refused (${errors.length} ${errors.length === 1 ? "problem" : "problems"} in ${variables}):`;
  return [header, ...errors.map((error) => `  - ${error.message}`)].join("\n");
}
