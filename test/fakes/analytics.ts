// A fake of the analytics vendor's capture API (SVC_ANALYTICS_VENDOR_API_BASE): records every event
// that arrives, whole, so tests can prove what was sent and what was not.
// Control route: GET /_fake/events?distinct_id=
import { createServer } from "node:http";
import { fields, json, serve, type Route } from "./codehost/http";

export async function startFakeAnalytics(options: { port?: number } = {}) {
  const events: Array<Record<string, unknown>> = [];
  const routes: Route[] = [
    ["POST", /^\/i\/v0\/e\/?$/, (request) => {
      const body = fields(request);
      if (typeof body.api_key !== "string") return json(401, { type: "authentication_error", detail: "Project API key invalid." });
      events.push(body);
      return json(200, { status: "Ok" });
    }],
    ["GET", /^\/_fake\/events$/, (request) => {
      const id = request.url.searchParams.get("distinct_id");
      return json(200, id === null ? events : events.filter((event) => event.distinct_id === id));
    }],
  ];
  const server = createServer((incoming, outgoing) => {
    serve(routes, incoming, outgoing, () => {}).catch(() => {
      if (!outgoing.headersSent) outgoing.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
