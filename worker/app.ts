// The control plane's HTTP surface: plumbing first, then one register call per capability.
import type { Hono } from "hono";
import { appBase } from "./app-base";
import type { AppEnv } from "./http/context";
import { pageHeaders } from "./http/page-headers";
import { registerAnalyticsProxy } from "./analytics-proxy/routes";
import { registerAssistant } from "./assistant/routes";
import { registerAuditExport } from "./exports/audit-routes";
import { registerSiteBeacon } from "./analytics/beacon-route";
import { registerBillingWebhooks } from "./billing/routes";
import { registerDeletionExportLink } from "./deletion/export-link";
import { registerDeletionNotice } from "./deletion/notice";
import { registerExportDownloads } from "./exports/routes";
import { registerCodehost } from "./codehost/routes";
import { registerIdentityExchange } from "./repository-claims/exchange-routes";
import { registerBindings } from "./repository-claims/routes";
import { registerCommands } from "./commands/routes";
import { registerConsole } from "./console/routes";
import { registerDeviceFlow } from "./device/routes";
import { registerEnterprise } from "./enterprise/routes";
import { EVENT_TYPES } from "./known-event-types";
import { registerEvents } from "./events/routes";
import { registerHealth } from "./health/routes";
import { registerLive } from "./live/routes";
import { registerMagicLinks } from "./magic-links/routes";
import { MetricsBuffer } from "./metrics/buffer";
import { registerMetrics } from "./metrics/routes";
import { registerMcp } from "./mcp/routes";
import { registerOpenApi } from "./openapi/routes";
import { registerOperators } from "./operators/routes";
import { registerProviders } from "./providers/routes";
import { registerPullRequestChecks } from "./pr-checks/routes";
import { registerRpc } from "./rpc/routes";
import { registerSessions } from "./sessions/routes";
import { registerSignIn } from "./signin/routes";
import { registerSiteForms } from "./site-forms/routes";
import { registerTokens } from "./tokens/routes";
import { registerWorkloads } from "./workloads/routes";

/**
 * Every route. `metrics`: this isolate's buffer (shared with the engine app, worker/apps.ts); tests
 * give two apps two buffers, as two isolates have.
 */
export function createApp(options: { metrics?: MetricsBuffer } = {}): Hono<AppEnv> {
  const app = appBase(options.metrics ?? new MetricsBuffer());
  // Every HTML page's framing and content policy, in one place.
  app.use(pageHeaders);
  registerHealth(app);
  registerEvents(app, EVENT_TYPES);
  registerTokens(app);
  registerWorkloads(app);
  registerCommands(app);
  registerIdentityExchange(app);
  registerBindings(app);
  registerCodehost(app);
  registerPullRequestChecks(app);
  registerBillingWebhooks(app);
  registerAuditExport(app);
  registerExportDownloads(app);
  registerDeletionExportLink(app);
  registerDeletionNotice(app);
  registerSignIn(app);
  registerSessions(app);
  registerDeviceFlow(app);
  registerMagicLinks(app);
  registerProviders(app);
  registerLive(app);
  registerAssistant(app);
  registerOperators(app);
  // The tools are console procedures: loaded with the router on the first use, not at isolate start.
  registerMcp(app, async () => (await import("./rpc/mcp-tools")).mcpTools);
  registerSiteBeacon(app);
  registerRpc(app);
  registerOpenApi(app, async () => (await import("./rpc/openapi")).rpcRouteDocs());
  registerEnterprise(app);
  registerMetrics(app);
  // The site host's forms and the analytics proxy.
  registerSiteForms(app);
  registerAnalyticsProxy(app);
  // Last: every other GET is a console page.
  registerConsole(app);
  return app;
}
