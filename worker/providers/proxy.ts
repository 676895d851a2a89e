// The budgeted model proxy: the caller's engine or CLI token in, the organization's own provider key
// out. The token is checked before the body is read. Before any upstream call: a priced model, a stored key and a reservation of the worst-case cost
// that fits the month's budget (all in the caller's transaction). Then the request is forwarded, the
// answer is passed back as it arrives, and the reservation is settled to the usage the answer reports.
// Prompts, completions and keys are never logged or stored.
import { openPool } from "../../db/neon";
import { assertNoTransaction, inTenant, type Connection } from "../../db/transaction";
import { sendAfterResponse } from "../analytics";
import { asProxyCaller, authenticateProxyCaller } from "../auth";
import { resolveModelPrice } from "../config/model-prices";
import type { ModelPrice } from "../config/types";
import type { AppContext } from "../http/context";
import { decodeUtf8, isJsonType, readBytes } from "../http/input";
import { diagnose } from "../http/diagnosis";
import { Refusal } from "../http/refusal";
import { log } from "../log";
import { reserve, settle, type Reservation } from "./budgets";
import type { Dialect, ModelRequest } from "./dialects";
import { openLiveKey } from "./keys";
import { callProvider, readToEnd, sseReader, type Usage } from "./usage";

/** Model requests carry whole conversations (and images); larger bodies are refused unread (413). */
export const PROXY_BODY_LIMIT = 16 * 1024 * 1024;

/** Upstream answer headers a client may need; everything else (cookies, the provider's ids) stays behind. */
const PASSED_HEADERS = ["content-type", "retry-after"];

interface Forwarding {
  dialect: Dialect;
  request: ModelRequest;
  price: ModelPrice;
  reservation: Reservation;
  started: number;
}

function jsonObject(c: AppContext, bytes: Uint8Array): Record<string, unknown> {
  const text = isJsonType(c.req.header("content-type")) ? decodeUtf8(bytes) : null;
  if (text === null) throw new Refusal("invalid_json", "The request body must be JSON (UTF-8) sent with the content type application/json.");
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new Refusal("invalid_json", "The request body must be one JSON object.");
}

export async function forward(c: AppContext, dialect: Dialect): Promise<Response> {
  // A stranger is refused before the body is read; the reservation's transaction checks the token again.
  await authenticateProxyCaller(c);
  const bytes = await readBytes(c, PROXY_BODY_LIMIT);
  const started = Date.now();
  const { config } = c.var;
  const ready = await asProxyCaller(c, async (tx, principal) => {
    const request = dialect.read(jsonObject(c, bytes));
    // A dated snapshot (`claude-sonnet-4-5-20250929`) is priced as its model; the provider gets the name as sent.
    const price = resolveModelPrice(config.modelPrices, request.model)?.price;
    if (!price) {
      throw new Refusal(
        "model_unpriced",
        `The model proxy has no price for "${request.model}", so it refuses it; the operator adds one to SVC_MODEL_PRICES (<model>=<input>/<output> US dollars per million tokens).`,
      );
    }
    const key = await openLiveKey(tx, config.providerKeys, principal.orgId, dialect.provider);
    const body = JSON.stringify(request.body);
    // Last in the transaction: the month's row stays locked only until the commit.
    const reservation = await reserve(
      tx,
      principal.orgId,
      dialect.provider,
      worstCaseMicros(price, new TextEncoder().encode(body).byteLength, request.maxOutputTokens),
    );
    return { key, body, forwarding: { dialect, request, price, reservation, started } satisfies Forwarding };
  });
  const { forwarding } = ready;
  let upstream: Response;
  assertNoTransaction("The model provider");
  try {
    upstream = await callProvider(dialect.apiBase(config.modelProviders).replace(/\/+$/, "") + dialect.path, {
      method: "POST",
      headers: dialect.headers(ready.key, c.req.raw.headers),
      body: ready.body,
    });
  } catch {
    await settleWith(c.var.database().connect, forwarding.reservation, 0);
    throw new Refusal("provider_unreachable", `${dialect.provider} could not be reached; nothing was charged.`);
  }
  const headers = new Headers(PASSED_HEADERS.flatMap((name) => (upstream.headers.has(name) ? [[name, upstream.headers.get(name)!]] : [])));
  if (!upstream.ok || !forwarding.request.stream || !upstream.body) {
    const answer = await upstream.arrayBuffer();
    // A refused request costs nothing; an answer without usage costs its reservation.
    const usage = upstream.ok ? usageOf(dialect, answer) : null;
    await settleWith(c.var.database().connect, forwarding.reservation, upstream.ok ? charge(forwarding, usage) : 0);
    report(c, forwarding, upstream.status, usage);
    return new Response(answer, { status: upstream.status, headers });
  }
  headers.set("cache-control", "no-cache");
  return new Response(relay(c, forwarding, upstream.body), { status: upstream.status, headers });
}

function usageOf(dialect: Dialect, answer: ArrayBuffer): Usage | null {
  try {
    return dialect.usage(JSON.parse(new TextDecoder().decode(answer)) as Record<string, unknown>);
  } catch {
    return null;
  }
}

const charge = (forwarding: Forwarding, usage: Usage | null) => (usage ? costMicros(forwarding.price, usage) : forwarding.reservation.micros);

async function settleWith(connect: () => Promise<Connection>, reservation: Reservation, charged: number): Promise<void> {
  await inTenant(connect, reservation.orgId, (tx) => settle(tx, reservation, charged));
}

/**
 * Passes the streamed answer through as it arrives, reading usage from its events on the way. The
 * upstream is read to its end even when the client goes away, so what the provider produced is
 * charged; the charge is recorded before the client sees the end of the stream. The request's own
 * pool is gone by then: settling opens and ends its own.
 */
function relay(c: AppContext, forwarding: Forwarding, upstream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const usage = forwarding.dialect.streamUsage();
  const read = sseReader((data) => usage.event(data));
  const { url, poolMax } = c.var.config.database;
  const pump = async () => {
    let clientGone = false;
    const broken = await readToEnd(upstream, async (chunk) => {
      read(chunk);
      if (!clientGone) await writer.write(chunk).catch(() => (clientGone = true));
    });
    const pool = openPool(url, "svc_app", Math.min(poolMax, 1));
    try {
      await settleWith(pool.connect, forwarding.reservation, charge(forwarding, usage.final()));
    } catch (error) {
      // The reservation stays counted in full: the budget errs on the side of the cap. Described, never
      // quoted: a query error's message carries the statement's parameters.
      const { kind, sqlState } = diagnose(error);
      log("error", "model_proxy.settle_failed", { provider: forwarding.dialect.provider, kind, ...(sqlState ? { sqlState } : {}) });
    } finally {
      await pool.end();
    }
    report(c, forwarding, 200, usage.final());
    if (clientGone) return;
    await (broken ? writer.abort(broken.error) : writer.close()).catch(() => {});
  };
  c.executionCtx.waitUntil(pump());
  return readable;
}

/** One analytics event per brokered call: model, provider, tokens, latency, cost; never content. */
function report(c: AppContext, forwarding: Forwarding, status: number, usage: Usage | null): void {
  const { analytics } = c.var.config;
  sendAfterResponse(c.executionCtx, analytics, {
    event: "$ai_generation",
    orgId: forwarding.reservation.orgId,
    properties: {
      $ai_model: forwarding.request.model,
      $ai_provider: forwarding.dialect.provider,
      $ai_input_tokens: usage?.inputTokens ?? null,
      $ai_output_tokens: usage?.outputTokens ?? null,
      $ai_latency: (Date.now() - forwarding.started) / 1000,
      $ai_trace_id: c.var.requestId,
      $ai_http_status: status,
      $ai_is_error: status >= 400,
      $ai_stream: forwarding.request.stream,
      ...(usage ? { $ai_total_cost_usd: costMicros(forwarding.price, usage) / 1e6 } : {}),
    },
  });
}

// What a request costs in micro-dollars: a price in US dollars per million tokens is micro-dollars
// per token. Rounded up, so a budget is never charged less than the price says.
export const costMicros = (price: ModelPrice, usage: Usage): number => Math.ceil(usage.inputTokens * price.input + usage.outputTokens * price.output);

/**
 * The most a request can cost: its output bound at the output price, and as many input tokens as the
 * request has bytes (a token of text is at least one byte, so this is an upper bound for text).
 */
export const worstCaseMicros = (price: ModelPrice, bodyBytes: number, maxOutputTokens: number): number =>
  costMicros(price, { inputTokens: bodyBytes, outputTokens: maxOutputTokens });
