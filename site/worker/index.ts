// The site host's Worker. Workers Assets serve the pages and files (site/dist, built by
// `npm run site:build`; an unknown page gets 404.html with status 404); only /api and the paths under
// it reach this code (run_worker_first in site/wrangler.toml). `GET /api` lists the site's endpoints,
// which are none; any other path under /api answers 404 with a stable code, a message and a resolution.
export interface SiteEnv {
  ASSETS: Fetcher;
}

/** The site's own error body: stable `code`, a sentence for a person, what to do. */
export interface SiteError {
  code: "not_found" | "method_not_allowed";
  message: string;
  resolution: string;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff", ...headers },
  });

export function answerApi(request: Request): Response | null {
  const { pathname } = new URL(request.url);
  if (pathname === "/api") {
    if (request.method === "GET" || request.method === "HEAD") return json(200, { endpoints: [] });
    const refused: SiteError = { code: "method_not_allowed", message: `${request.method} is not served at /api.`, resolution: "Send GET /api." };
    return json(405, refused, { allow: "GET, HEAD" });
  }
  if (pathname.startsWith("/api/")) {
    const missing: SiteError = {
      code: "not_found",
      message: "There is no site API endpoint at this address.",
      resolution: "GET /api lists the site's endpoints (there are none). The control plane's API is described at /openapi.json and /docs/api.",
    };
    return json(404, missing);
  }
  return null;
}

export default {
  async fetch(request: Request, env: SiteEnv): Promise<Response> {
    return answerApi(request) ?? env.ASSETS.fetch(request);
  },
} satisfies ExportedHandler<SiteEnv>;
