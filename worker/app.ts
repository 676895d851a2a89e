// The control plane's HTTP surface: plumbing first, then one register call per capability.
import { Hono } from "hono";
import type { AppEnv } from "./http/context";
import { notFound, onError } from "./http/failure";
import { migrateOnStart } from "./http/migrate-on-start";
import { services } from "./http/services";
import { registerAuditExport } from "./audit/routes";
import { registerSiteBeacon } from "./analytics/beacon-route";
import { registerBillingWebhooks } from "./billing/routes";
import { registerDeletionExportLink } from "./deletion/export-link";
import { registerExportDownloads } from "./exports/routes";
import { registerCodehost } from "./codehost/routes";
import { registerCommands } from "./commands/routes";
import { registerConsole } from "./console/routes";
import { registerDeviceFlow } from "./device/routes";
import { registerEvents } from "./events/routes";
import { registerHealth } from "./health/routes";
import { registerMagicLinks } from "./magic-links/routes";
import { registerOpenApi } from "./openapi/routes";
import { registerProviders } from "./providers/routes";
import { registerRpc } from "./rpc/routes";
import { registerSessions } from "./sessions/routes";
import { registerSignIn } from "./signin/routes";
import { registerTokens } from "./tokens/routes";
import { registerWorkloads } from "./workloads/routes";

export function createApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(services);
  app.use(migrateOnStart);
  app.onError(onError);
  app.notFound(notFound);
  registerHealth(app);
  registerEvents(app);
  registerTokens(app);
  registerWorkloads(app);
  registerCommands(app);
  registerCodehost(app);
  registerBillingWebhooks(app);
  registerAuditExport(app);
  registerExportDownloads(app);
  registerDeletionExportLink(app);
  registerSignIn(app);
  registerSessions(app);
  registerDeviceFlow(app);
  registerMagicLinks(app);
  registerProviders(app);
  registerSiteBeacon(app);
  registerRpc(app);
  registerOpenApi(app);
  // Last: every other GET is a console page.
  registerConsole(app);
  return app;
}
