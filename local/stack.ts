// The local stack shared by `npm start` and the test suite: PostgreSQL, its roles and migrations,
// and the WebSocket bridge the neon driver speaks to.
import { startPostgres } from "./postgres";
import { provision, type DatabaseUrls } from "./provision";
import { startBridge } from "./ws-bridge";

export interface LocalStack {
  urls: DatabaseUrls;
  superuserUrl: string;
  /** `host:port` of the bridge, for SVC_DATABASE_WS_PROXY. */
  bridge: string;
  stop: () => Promise<void>;
}

export async function startLocalStack(options: {
  dataDir: string;
  postgresPort: number;
  bridgePort: number;
  persistent: boolean;
}): Promise<LocalStack> {
  const postgres = await startPostgres({ dataDir: options.dataDir, port: options.postgresPort, persistent: options.persistent });
  try {
    const urls = await provision(postgres.port, postgres.superuserUrl);
    const bridge = await startBridge(options.bridgePort);
    return {
      urls,
      superuserUrl: postgres.superuserUrl("svc"),
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
