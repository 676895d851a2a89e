// The code host: OAuth sign-in (required) and the optional App (webhooks, installations).
import { decodeBase64, parseUrl, readAllOrNone, readHttpUrl, readRequired, type EnvReader } from "./readers";
import type { CodehostApp, CodehostConfig } from "./types";

/** The only origin the provider serves App installation pages from. */
const APP_ORIGIN = "https://github.com";
const INSTALL_PATH = /^\/apps\/[a-z0-9-]+\/installations\/new$/;
const PEM = /^-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----\n(?:[A-Za-z0-9+/=]+\n)+-----END \1-----\n$/;

export function readCodehost(r: EnvReader): CodehostConfig {
  return {
    clientId: readRequired(r, "SVC_CODEHOST_CLIENT_ID"),
    clientSecret: readRequired(r, "SVC_CODEHOST_CLIENT_SECRET"),
    redirectUri: readRequired(r, "SVC_CODEHOST_REDIRECT_URI", readHttpUrl),
    apiBase: readHttpUrl(r, "SVC_CODEHOST_API_BASE") ?? "https://api.github.com",
    app: readApp(r),
    installUrl: readInstallUrl(r),
  };
}

function readApp(r: EnvReader): CodehostApp | null {
  const app = readAllOrNone(r, ["SVC_CODEHOST_APP_ID", "SVC_CODEHOST_APP_PRIVATE_KEY", "SVC_CODEHOST_APP_WEBHOOK_SECRET"]);
  const key = r.text("SVC_CODEHOST_APP_PRIVATE_KEY");
  const privateKeyPem = key === undefined ? null : normalizePrivateKey(key);
  if (key !== undefined && privateKeyPem === null) {
    r.refuse("SVC_CODEHOST_APP_PRIVATE_KEY", "SVC_CODEHOST_APP_PRIVATE_KEY must be a PEM private key or a base64-encoded one.");
  }
  if (app === null || privateKeyPem === null) return null;
  return { appId: app.SVC_CODEHOST_APP_ID, privateKeyPem, webhookSecret: app.SVC_CODEHOST_APP_WEBHOOK_SECRET };
}

/**
 * Hosting dashboards often take one-line values, so a PEM arrives with literal `\n` sequences or
 * base64-encoded. Either way the result is the PEM with one line per row and a final newline.
 */
function normalizePrivateKey(text: string): string | null {
  const decoded = decodeBase64(text);
  const candidates = decoded === null ? [text] : [text, new TextDecoder().decode(decoded)];
  for (const candidate of candidates) {
    const lines = candidate
      .replaceAll("\\n", "\n")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    const pem = `${lines.join("\n")}\n`;
    if (PEM.test(pem)) return pem;
  }
  return null;
}

function readInstallUrl(r: EnvReader): string | null {
  const value = r.text("SVC_CODEHOST_APP_INSTALL_URL");
  if (value === undefined) return null;
  const url = parseUrl(value);
  // `URL` drops an empty `?` or `#`, so the text itself is checked for them.
  const ok =
    url !== null &&
    url.origin === APP_ORIGIN &&
    url.username === "" &&
    url.password === "" &&
    INSTALL_PATH.test(url.pathname) &&
    !value.includes("?") &&
    !value.includes("#");
  if (ok) return url.href;
  r.refuse("SVC_CODEHOST_APP_INSTALL_URL", `SVC_CODEHOST_APP_INSTALL_URL must be ${APP_ORIGIN}/apps/<slug>/installations/new, with no query and no fragment.`);
  return null;
}
