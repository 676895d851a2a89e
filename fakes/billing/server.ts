// A fake of the billing provider (SVC_BILLING_API_BASE), speaking Stripe's REST API as far as this
// service uses it: checkout sessions, billing portal sessions, subscriptions. Completing a checkout
// or changing a subscription emits the provider's events: signed and posted to `webhookTarget` when
// one is given (npm start), and always kept for tests to read and deliver themselves.
// Control routes under /_fake/. Ids carry a per-start prefix, so they never repeat across restarts.
import { createServer } from "node:http";
import { signBillingBody } from "../../worker/billing/signature";
import { fields, json, serve, type FakeRequest, type FakeResponse, type Route } from "../codehost/http";

export interface FakeBillingOptions {
  port?: number;
  /** The Worker's /webhooks/billing, and the secret to sign with; without them events are only kept. */
  webhookTarget?: string;
  webhookSecret?: string;
}

interface Subscription {
  id: string;
  object: "subscription";
  customer: string;
  status: string;
  cancel_at_period_end: boolean;
  current_period_end: number;
  items: { data: Array<{ price: { id: string } }> };
  metadata: Record<string, string>;
}

interface CheckoutSession {
  id: string;
  customer: string;
  price: string;
  success_url: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  subscriptionMetadata: Record<string, string>;
  completed: boolean;
}

interface Recorded {
  method: string;
  path: string;
  authorization: string | undefined;
  form: Record<string, string>;
}

export async function startFakeBilling(options: FakeBillingOptions = {}) {
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  let counter = 0;
  const newId = (prefix: string) => `${prefix}_${run}${(++counter).toString(36)}`;
  const now = () => Math.floor(Date.now() / 1000);

  const sessions = new Map<string, CheckoutSession>();
  const subscriptions = new Map<string, Subscription>();
  const requests: Recorded[] = [];
  const events: Array<Record<string, unknown>> = [];
  const deliveries: Array<{ event: string; status: number | null }> = [];
  const refusals = new Map<string, { status: number; message: string; silent: boolean; orgId: string | null }>();
  let base = "";

  async function emit(type: string, object: unknown) {
    const event = { id: newId("evt"), object: "event", type, created: now(), data: { object: structuredClone(object) } };
    events.push(event);
    if (!options.webhookTarget || !options.webhookSecret) return;
    const body = JSON.stringify(event);
    const status = await fetch(options.webhookTarget, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": await signBillingBody(options.webhookSecret, body) },
      body,
    }).then(
      (response) => response.status,
      () => null,
    );
    deliveries.push({ event: event.id, status });
  }

  /** Metadata as Stripe's form encoding sends it: `metadata[key]=value`, or nested under a prefix. */
  const metadataOf = (form: Record<string, string>, prefix: string) =>
    Object.fromEntries(
      Object.entries(form).flatMap(([key, value]) => {
        const match = new RegExp(`^${prefix.replace(/[[\]]/g, "\\$&")}\\[([^\\]]+)\\]$`).exec(key);
        return match ? [[match[1]!, value]] : [];
      }),
    );

  /** An API call: recorded, then refused if a refusal was set for its path. */
  const api = (handler: (request: FakeRequest, form: Record<string, string>) => Promise<FakeResponse> | FakeResponse) => async (request: FakeRequest) => {
    const form = fields(request) as Record<string, string>;
    requests.push({ method: request.method, path: request.url.pathname, authorization: request.headers.authorization, form });
    if (!request.bearer) return json(401, { error: { type: "invalid_request_error", message: "You did not provide an API key." } });
    const refusal = refusals.get(request.url.pathname);
    // One scoped to an organization applies only to calls that name it (tests running beside it call the same path).
    const applies = refusal && (refusal.orgId === null || form.client_reference_id === refusal.orgId || form["metadata[org_id]"] === refusal.orgId);
    if (applies && refusal.silent) return { status: 0, silent: true as const };
    if (applies) return json(refusal.status, { error: { type: "invalid_request_error", message: refusal.message } });
    return handler(request, form);
  };

  async function completeCheckout(session: CheckoutSession) {
    session.completed = true;
    const subscription: Subscription = {
      id: newId("sub"),
      object: "subscription",
      customer: session.customer,
      status: "active",
      cancel_at_period_end: false,
      current_period_end: now() + 30 * 86_400,
      items: { data: [{ price: { id: session.price } }] },
      metadata: session.subscriptionMetadata,
    };
    subscriptions.set(subscription.id, subscription);
    await emit("checkout.session.completed", {
      id: session.id,
      object: "checkout.session",
      customer: session.customer,
      subscription: subscription.id,
      client_reference_id: session.client_reference_id,
      metadata: session.metadata,
    });
    await emit("customer.subscription.created", subscription);
    return subscription;
  }

  const routes: Route[] = [
    [
      "POST",
      /^\/v1\/checkout\/sessions$/,
      api((_request, form) => {
        const price = form["line_items[0][price]"];
        if (!price) return json(400, { error: { type: "invalid_request_error", message: "Missing required param: line_items[0][price]." } });
        const session: CheckoutSession = {
          id: newId("cs"),
          customer: form.customer ?? newId("cus"),
          price,
          success_url: form.success_url ?? "",
          client_reference_id: form.client_reference_id ?? null,
          metadata: metadataOf(form, "metadata"),
          subscriptionMetadata: metadataOf(form, "subscription_data[metadata]"),
          completed: false,
        };
        sessions.set(session.id, session);
        return json(200, { id: session.id, object: "checkout.session", url: `${base}/_fake/checkout/${session.id}`, customer: session.customer });
      }),
    ],
    [
      "POST",
      /^\/v1\/billing_portal\/sessions$/,
      api((_request, form) =>
        json(200, {
          id: newId("bps"),
          object: "billing_portal.session",
          customer: form.customer,
          url: `${base}/_fake/portal/${encodeURIComponent(form.customer ?? "")}`,
        }),
      ),
    ],
    [
      "POST",
      /^\/v1\/subscriptions\/([^/]+)$/,
      api(async (request, form) => {
        const subscription = subscriptions.get(request.params[0]!);
        if (!subscription) return json(404, { error: { type: "invalid_request_error", message: "No such subscription." } });
        if (form.cancel_at_period_end !== undefined) subscription.cancel_at_period_end = form.cancel_at_period_end === "true";
        if (form["items[0][price]"]) subscription.items.data[0]!.price.id = form["items[0][price]"];
        await emit("customer.subscription.updated", subscription);
        return json(200, subscription);
      }),
    ],
    // A person paying: the page, and its button.
    [
      "GET",
      /^\/_fake\/checkout\/([^/]+)$/,
      (request) => {
        const session = sessions.get(request.params[0]!);
        if (!session) return json(404, { message: "No such checkout." });
        return {
          status: 200,
          headers: { "content-type": "text/html; charset=utf-8" },
          text: `<!doctype html><title>Fake checkout</title><h1>Fake checkout</h1><p>Price ${session.price}</p>
<form method="post" action="/_fake/checkout/${session.id}/complete"><button>Pay</button></form>`,
        };
      },
    ],
    [
      "POST",
      /^\/_fake\/checkout\/([^/]+)\/complete$/,
      async (request) => {
        const session = sessions.get(request.params[0]!);
        if (!session || session.completed) return json(404, { message: "No such open checkout." });
        const subscription = await completeCheckout(session);
        return String(request.headers.accept).includes("text/html") || String(request.headers["content-type"]).includes("form")
          ? { status: 303, headers: { location: session.success_url } }
          : json(200, { subscription });
      },
    ],
    [
      "GET",
      /^\/_fake\/portal\/([^/]+)$/,
      () => ({
        status: 200,
        headers: { "content-type": "text/html; charset=utf-8" },
        text: "<!doctype html><title>Fake portal</title><h1>Fake customer portal</h1>",
      }),
    ],
    // The subscription's period ends (after cancel_at_period_end) or the provider ends it.
    [
      "POST",
      /^\/_fake\/subscriptions\/([^/]+)\/end$/,
      async (request) => {
        const subscription = subscriptions.get(request.params[0]!);
        if (!subscription) return json(404, { message: "No such subscription." });
        subscription.status = "canceled";
        await emit("customer.subscription.deleted", subscription);
        return json(200, subscription);
      },
    ],
    ["GET", /^\/_fake\/requests$/, () => json(200, requests)],
    ["GET", /^\/_fake\/events$/, () => json(200, events)],
    ["GET", /^\/_fake\/deliveries$/, () => json(200, deliveries)],
    [
      "DELETE",
      /^\/_fake\/refusals$/,
      (request) => {
        refusals.delete(request.url.searchParams.get("path") ?? "");
        return json(200, { cleared: true });
      },
    ],
    [
      "POST",
      /^\/_fake\/refusals$/,
      (request) => {
        const body = fields(request) as { path?: string; status?: number; message?: string; silent?: boolean; orgId?: string };
        if (typeof body.path !== "string") return json(400, { message: "Send { path, status?, message?, silent?, orgId? }." });
        refusals.set(body.path, {
          status: Number(body.status ?? 402),
          message: body.message ?? "Your card was declined.",
          silent: body.silent === true,
          orgId: typeof body.orgId === "string" ? body.orgId : null,
        });
        return json(200, { refused: body.path });
      },
    ],
  ];

  const server = createServer((incoming, outgoing) => {
    serve(routes, incoming, outgoing, () => {}).catch(() => {
      if (!outgoing.headersSent) outgoing.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: base,
    /** Completes a checkout as the person would (tests). */
    complete: async (sessionId: string) => {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no checkout ${sessionId}`);
      return completeCheckout(session);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
