// What an engine says of an environment: its identifier and the payload of its `environment.*` events
// (spec: Environment event payload properties), checked where events are validated (worker/events).
import * as z from "zod";
import { RepositoryName } from "../http/repository-name";
import { storable, text } from "../http/text";

/** An environment's limits as events carry them (README: Limits). */
export const ENVIRONMENT_LIMITS = { envId: 200, branch: 255, ttlSeconds: 10 * 365 * 86_400, reason: 1000 } as const;

/** An environment's identifier as its engine names it (events, workload claims, console procedures). */
export const EnvId = text({ min: 1, max: ENVIRONMENT_LIMITS.envId });

/** `environment.*` payload properties (spec: Environment event payload properties). */
export const EnvironmentPayload = z.looseObject({
  repository: RepositoryName.optional(),
  branch: text({ max: ENVIRONMENT_LIMITS.branch }).optional(),
  pull_request: z.int().min(1).max(2_147_483_647).optional(),
  started_at: z.iso.datetime({ offset: true }).optional(),
  ttl_seconds: z.number().min(1).max(ENVIRONMENT_LIMITS.ttlSeconds).optional(),
  // This service's own properties: where the environment's web services answer; and, on
  // environment.failed, why in the engine's words and the workflow run whose log tells more.
  preview_urls: z
    .array(storable(z.url({ protocol: /^https?$/ }).max(2000)))
    .max(20)
    .optional(),
  reason: text({ max: ENVIRONMENT_LIMITS.reason }).optional(),
  workflow_run_url: storable(z.url({ protocol: /^https?$/ }).max(2000)).optional(),
});
export type EnvironmentPayload = z.infer<typeof EnvironmentPayload>;
