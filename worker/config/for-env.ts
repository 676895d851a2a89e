// The Worker's view of configuration: parsed once per environment object (once per isolate in
// production), refusing to go on when a variable is bad.
import { formatConfigErrors, parseConfig } from "./parse";
import { describeConfig } from "./summary";
import type { Config } from "./types";
import { log } from "../log";

const parsed = new WeakMap<object, Config>();

export class ConfigRefusal extends Error {
  override readonly name = "ConfigRefusal";
}

export function configFor(env: object): Config {
  const known = parsed.get(env);
  if (known) return known;
  const result = parseConfig(env as Record<string, unknown>);
  for (const warning of result.warnings) log("warn", "config.warning", { warning });
  if (!result.ok) throw new ConfigRefusal(formatConfigErrors(result.errors));
  parsed.set(env, result.config);
  return result.config;
}

/** Isolate start: validate, then log once what was decided. */
export function startWith(env: object): Config {
  const config = configFor(env);
  log("info", "config.decided", describeConfig(config));
  return config;
}
