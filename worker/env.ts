// What the Worker is given: the SVC_* configuration variables and its platform bindings.
import type { EnvironmentApi, LiveApi, MetricsApi, RateLimiterApi } from "./object-interfaces";

export interface Bindings {
  ENVIRONMENTS: DurableObjectNamespace<EnvironmentApi>;
  RATE_LIMITER: DurableObjectNamespace<RateLimiterApi>;
  /** The deployment's metrics (GET /metrics), fed in batches by every isolate. */
  METRICS: DurableObjectNamespace<MetricsApi>;
  /** Each organization's live channel for the console (worker/live). */
  LIVE: DurableObjectNamespace<LiveApi>;
  /** Where condemned event months are archived (under SVC_EVENT_ARCHIVE_DIR as the key prefix). */
  EVENT_ARCHIVE?: R2Bucket;
  /** Data export documents, under `data-exports/<organization>/`. */
  EXPORTS?: R2Bucket;
  /** The console's build (Workers Assets, wrangler.toml [assets]); its directory holds no index.html before a build. */
  ASSETS?: Fetcher;
}

export type Env = Bindings & { readonly [variable: `SVC_${string}`]: string | undefined };
