// `.data/local.env`: the SVC_* values of the running local stack, written by `npm start` and read
// by the operator command line as defaults, so `npm run svc -- ...` works beside it unconfigured.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const DATA_DIR = fileURLToPath(new URL("../.data/", import.meta.url));
export const LOCAL_ENV_FILE = DATA_DIR + "local.env";

export function writeEnvFile(path: string, values: Record<string, string>): void {
  const lines = Object.entries(values).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  writeFileSync(path, lines.join("\n") + "\n", { mode: 0o600 });
}

export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const values: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (match) values[match[1]!] = JSON.parse(match[2]!) as string;
  }
  return values;
}

/** The shell's variables win over the local stack's. */
export const withLocalDefaults = (env: NodeJS.ProcessEnv): Record<string, string | undefined> => ({
  ...readEnvFile(LOCAL_ENV_FILE),
  ...env,
});

/** 32 random bytes (base64) kept in `.data/<file>`, made on first use: local keys survive restarts. */
export function persistentSecret(file: string): string {
  const path = DATA_DIR + file;
  if (!existsSync(path)) writeFileSync(path, btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))), { mode: 0o600 });
  return readFileSync(path, "utf8").trim();
}
