// The local stack shared by `npm start` and the test suite: PostgreSQL, its roles and migrations,
// and the WebSocket bridge the neon driver speaks to.
import { startPostgres } from "./postgres";
import { provision, type DatabaseUrls } from "./provision";
import { startBridge } from "./ws-bridge";

export interface LocalStack {
  urls: DatabaseUrls;
  /** Logins that inherit their roles, for code that takes no role itself (test/releases: the previous release). */
  inheritingUrls: DatabaseUrls["inheriting"];
  superuserUrl: string;
  /** The server's data folder (the fault suite freezes the processes its postmaster.pid names). */
  dataDir: string;
  /** `host:port` of the bridge, for SVC_DATABASE_WS_PROXY. */
  bridge: string;
  stop: () => Promise<void>;
}

export async function startLocalStack(options: { dataDir: string; postgresPort: number; bridgePort: number; persistent: boolean }): Promise<LocalStack> {
  const postgres = await startPostgres({ dataDir: options.dataDir, port: options.postgresPort, persistent: options.persistent });
  try {
    const urls = await provision(postgres.port, postgres.superuserUrl);
    const bridge = await startBridge(options.bridgePort);
    return {
      urls,
      inheritingUrls: urls.inheriting,
      superuserUrl: postgres.superuserUrl("svc"),
      dataDir: options.dataDir,
      bridge: bridge.url,
      stop: async () => {
        await bridge.close();
        await postgres.stop();
      },
    };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}

/** What the Worker needs to run against a local stack; the code-host values are placeholders. */
export function localWorkerDefaults(stack: LocalStack, port: string, ssoKey: string): Record<string, string> {
  const base = `http://127.0.0.1:${port}`;
  return {
    SVC_PORT: port,
    SVC_DATABASE_URL: stack.urls.app,
    SVC_ADMIN_DATABASE_URL: stack.urls.operator,
    SVC_MIGRATION_DATABASE_URL: stack.urls.migration,
    SVC_MAINTENANCE_DATABASE_URL: stack.urls.maintenance,
    SVC_RESEAL_DATABASE_URL: stack.urls.reseal,
    SVC_DATABASE_WS_PROXY: stack.bridge,
    SVC_CODEHOST_CLIENT_ID: "local-client-id",
    SVC_CODEHOST_CLIENT_SECRET: "local-client-secret",
    SVC_CODEHOST_REDIRECT_URI: `${base}/auth/callback`,
    SVC_APP_BASE_URL: base,
    SVC_EE_SSO_KEY: ssoKey,
    SVC_INSECURE_COOKIES: "1",
  };
}
