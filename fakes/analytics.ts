// A fake of the analytics vendor's capture API (SVC_ANALYTICS_VENDOR_API_BASE): records every event
// that arrives, whole, so tests can prove what was sent and what was not.
// The browser-side capture paths the /px proxy forwards (/e/, /batch/, /decide/, ...) are recorded
// whole with the headers that arrived, and answer with a cookie the proxy must not pass on; a request
// whose query has `fake_redirect=1` is answered with a redirect the proxy must refuse, and one with
// `fake_type=<content type>` with a script-bearing HTML body under that type.
// Control routes: GET /_fake/events?distinct_id=, GET /_fake/proxied?marker= (requests whose body holds the marker)
import { createServer } from "node:http";
import { fields, json, serve, type FakeResponse, type Route } from "./codehost/http";

export async function startFakeAnalytics(options: { port?: number } = {}) {
  const events: Array<Record<string, unknown>> = [];
  const proxied: Array<{ path: string; query: string; headers: Record<string, unknown>; body: string }> = [];
  const routes: Route[] = [
    [
      "POST",
      /^\/(?:e|batch|capture|decide|flags)\/?$/,
      (request): FakeResponse => {
        if (request.url.searchParams.get("fake_redirect") === "1") return { status: 302, headers: { location: "https://elsewhere.example/e/" } };
        proxied.push({ path: request.url.pathname, query: request.url.search, headers: { ...request.headers }, body: request.text });
        const type = request.url.searchParams.get("fake_type");
        if (type !== null) return { status: 200, text: "<html><script>alert(document.cookie)</script></html>", headers: { "content-type": type } };
        return { status: 200, json: { status: 1 }, headers: { "set-cookie": "vendor_visitor=abc; Path=/", "x-vendor-trace": "t-1" } };
      },
    ],
    [
      "GET",
      /^\/_fake\/proxied$/,
      (request) => {
        const marker = request.url.searchParams.get("marker") ?? "";
        return json(
          200,
          proxied.filter((entry) => entry.body.includes(marker)),
        );
      },
    ],
    [
      "POST",
      /^\/i\/v0\/e\/?$/,
      (request): FakeResponse => {
        if (request.url.searchParams.get("fake_redirect") === "1") return { status: 307, headers: { location: "https://elsewhere.example/i/v0/e/" } };
        proxied.push({ path: request.url.pathname, query: request.url.search, headers: { ...request.headers }, body: request.text });
        const body = fields(request);
        if (typeof body.api_key !== "string") return json(401, { type: "authentication_error", detail: "Project API key invalid." });
        events.push(body);
        return json(200, { status: "Ok" });
      },
    ],
    [
      "GET",
      /^\/_fake\/events$/,
      (request) => {
        const id = request.url.searchParams.get("distinct_id");
        return json(200, id === null ? events : events.filter((event) => event.distinct_id === id));
      },
    ],
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
