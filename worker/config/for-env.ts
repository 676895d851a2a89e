// The Worker's view of configuration: parsed once per environment object (once per isolate in
// production), refusing to go on when a variable is bad.
import { formatConfigErrors, parseConfig } from "./parse";
import { licenceSignatureProblem } from "./licence-signature";
import { describeConfig } from "./summary";
import type { Config } from "./types";
import { log } from "../log";

const parsed = new WeakMap<object, Config>();

export class ConfigRefusal extends Error {
  override readonly name: string = "ConfigRefusal";
}

/** An unusable licence key: `config check` exits 2 for the same reason. */
export class LicenceRefusal extends ConfigRefusal {
  override readonly name: string = "LicenceRefusal";
}

export function configFor(env: object): Config {
  const known = parsed.get(env);
  if (known) return known;
  const result = parseConfig(env as Record<string, unknown>);
  for (const warning of result.warnings) log("warn", "config.warning", { warning });
  if (!result.ok) {
    const message = formatConfigErrors(result.errors);
    throw result.errors.some((error) => error.exitStatus === 2) ? new LicenceRefusal(message) : new ConfigRefusal(message);
  }
  parsed.set(env, result.config);
  return result.config;
}

/** Isolate start: validate (the licence signature too), then log once what was decided. */
export async function startWith(env: object): Promise<Config> {
  const config = configFor(env);
  const problem = await licenceSignatureProblem(config);
  if (problem !== null) throw new LicenceRefusal(formatConfigErrors([{ variable: "SVC_LICENSE_KEY", message: problem, exitStatus: 2 }]));
  const decided = describeConfig(config);
  log("info", "config.decided", decided);
  const licence = decided.licence;
  if ("graceEndsAt" in licence && licence.state === "grace") {
    log("warn", "licence.grace", {
      message: "The licence has expired and works only until its grace period ends; install a renewed SVC_LICENSE_KEY.",
      id: licence.id,
      expiredAt: licence.expiresAt,
      graceEndsAt: licence.graceEndsAt,
    });
  }
  return config;
}
