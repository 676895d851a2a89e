// How the Worker faces the network: port, proxies, cookies, cross-origin posts, public addresses.
import { parseUrl, readHttpUrl, readList, readOnWithOne, readWholeNumber, type EnvReader } from "./readers";
import type { ServerConfig } from "./types";

/** `publicUrl` is SVC_PUBLIC_URL as the mail section validated it, so it is read once. */
export function readServer(r: EnvReader, publicUrl: string | null): ServerConfig {
  return {
    port: readWholeNumber(r, "SVC_PORT", 1, 65535) ?? 8080,
    trustedProxyHops: readWholeNumber(r, "SVC_TRUSTED_PROXY_HOPS", 1, 16) ?? 1,
    insecureCookies: readOnWithOne(r, "SVC_INSECURE_COOKIES"),
    consoleDir: r.text("SVC_CONSOLE_DIR") ?? "/app/console-out",
    appBaseUrl: readHttpUrl(r, "SVC_APP_BASE_URL"),
    siteOrigins: readSiteOrigins(r),
    envUrl: readHttpUrl(r, "SVC_ENV_URL") ?? publicUrl,
  };
}

/** Exact origins as a browser sends them in `Origin`; a bare trailing `/` is tolerated and dropped. */
function readSiteOrigins(r: EnvReader): string[] {
  const origins: string[] = [];
  for (const [index, entry] of (readList(r, "SVC_SITE_ORIGIN") ?? []).entries()) {
    const url = parseUrl(entry);
    const exact =
      url !== null &&
      (url.protocol === "https:" || url.protocol === "http:") &&
      url.hostname !== "" &&
      !entry.includes("*") &&
      url.username === "" &&
      url.password === "" &&
      url.pathname === "/" &&
      !entry.includes("?") &&
      !entry.includes("#");
    if (exact) origins.push(url.origin);
    else
      r.refuse(
        "SVC_SITE_ORIGIN",
        `SVC_SITE_ORIGIN entry ${index + 1} must be an exact origin such as https://example.com or http://localhost:8080, with no path, query, fragment or wildcard.`,
      );
  }
  return [...new Set(origins)];
}
