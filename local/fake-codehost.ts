// `npm start` with no SVC_CODEHOST_API_BASE in the shell: the fake code host of the tests stands in for
// the code host, and (unless the shell names an App) the Worker uses its App, so installing that App
// through the fake delivers signed webhooks to the local Worker and its identity tokens exchange.
import { startFakeCodehost } from "../fakes/codehost/server";

export const FAKE_CODEHOST_PORT = 54331;
const APP_VARIABLES = ["SVC_CODEHOST_APP_ID", "SVC_CODEHOST_APP_PRIVATE_KEY", "SVC_CODEHOST_APP_WEBHOOK_SECRET"];

export async function startLocalFakeCodehost(port: string) {
  if (process.env.SVC_CODEHOST_API_BASE) return null;
  const base = `http://127.0.0.1:${port}`;
  const fake = await startFakeCodehost({
    port: FAKE_CODEHOST_PORT,
    audience: (process.env.SVC_APP_BASE_URL ?? base).replace(/\/+$/, ""),
    webhookTarget: `${base}/webhooks/codehost`,
  });
  const appFromShell = APP_VARIABLES.some((name) => process.env[name] !== undefined);
  return {
    variables: {
      SVC_CODEHOST_API_BASE: fake.url,
      ...(appFromShell
        ? {}
        : {
            SVC_CODEHOST_APP_ID: fake.app.id,
            SVC_CODEHOST_APP_PRIVATE_KEY: fake.app.privateKeyPem,
            SVC_CODEHOST_APP_WEBHOOK_SECRET: fake.app.webhookSecret,
          }),
    },
    close: fake.close,
    banner: `fake code host ${fake.url}  (README: "The fake code host"; install the App: POST /_fake/app/installations)`,
  };
}
