// `npm start` with no SVC_CODEHOST_API_BASE in the shell: the fake code host of the tests stands in for
// the code host, and (unless the shell names an App) the Worker uses its App, so installing that App
// through the fake delivers signed webhooks to the local Worker and its identity tokens exchange. Every
// repository holds the engine's workflow (the one Getting started shows) and the workflow files of
// local/workflows/, if that folder exists, so the console's dispatches are accepted.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { startFakeCodehost } from "../fakes/codehost/server";

// Read as a file: the Worker's module that imports it as text (engine-work.ts) does not load in Node.
const STANDARD = new URL("../worker/environments/control-plane.yml", import.meta.url);
const WORKFLOWS = new URL("./workflows/", import.meta.url);

/** The workflow files every fake repository holds, by file name. */
export const localWorkflows = (): Record<string, string> => ({
  "control-plane.yml": readFileSync(STANDARD, "utf8"),
  ...Object.fromEntries(
    (existsSync(WORKFLOWS) ? readdirSync(WORKFLOWS) : [])
      .filter((name) => /\.ya?ml$/.test(name))
      .map((name) => [name, readFileSync(new URL(name, WORKFLOWS), "utf8")]),
  ),
});

export const FAKE_CODEHOST_PORT = 54331;
const APP_VARIABLES = ["SVC_CODEHOST_APP_ID", "SVC_CODEHOST_APP_PRIVATE_KEY", "SVC_CODEHOST_APP_WEBHOOK_SECRET"];

export async function startLocalFakeCodehost(port: string) {
  if (process.env.SVC_CODEHOST_API_BASE) return null;
  const base = `http://127.0.0.1:${port}`;
  const workflows = localWorkflows();
  const fake = await startFakeCodehost({
    port: FAKE_CODEHOST_PORT,
    audience: (process.env.SVC_APP_BASE_URL ?? base).replace(/\/+$/, ""),
    webhookTarget: `${base}/webhooks/codehost`,
    workflows,
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
    banner: `fake code host ${fake.url}  (README: "The fake code host"; sign in to pick or create an account; every repository holds ${Object.keys(workflows).join(", ")})`,
  };
}
