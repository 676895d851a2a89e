// Console pages. Workers Assets answer only the build's own files (`/`, `/assets/...`); every other
// page address (a console route such as `/o/acme/tokens`) reaches the Worker, which answers a GET with
// the built index.html if the ASSETS binding has one, else a page saying how to build the console:
// never a blank page or a 500. Any other method on an unknown address is the 404 Refusal.
import type { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../http/context";
import { page } from "../http/pages";
import { isApiPath } from "./api-prefixes";
import { planGate } from "../http/plan-gate";

/** 503: the console is unavailable until it is built; the API keeps answering. */
const NOT_BUILT_STATUS = 503;

export const notBuiltPage = () =>
  page(
    "The console is not built",
    html`<p>This control plane is running, but its browser console has not been built, so there is no page to show here yet.</p>
<p>Run <code>npm run build:console</code> (<code>npm start</code> does it), then reload this page.</p>
<p class="muted">The API is unaffected: <a href="/health">/health</a>, <a href="/openapi.json">/openapi.json</a>.</p>`,
  );

export function registerConsole(app: Hono<AppEnv>): void {
  app.get("*", planGate("reachable"), async (c) => {
    if (isApiPath(c.req.path)) return c.notFound();
    // `/`, not `/index.html`, which Assets answer with a redirect to `/`.
    const built = await c.env.ASSETS?.fetch(new URL("/", c.req.url));
    if (built?.ok) return new Response(built.body, built);
    return c.html(notBuiltPage(), NOT_BUILT_STATUS);
  });
}
