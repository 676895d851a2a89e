// Asking the website assistant: the owner's session, then (in one short transaction) the role, the
// key and the day's count and token reservation; then, with no transaction open, the model call with
// the operator's key (SVC_CMS_MODEL_API_KEY, never an organization's), its answer relayed to the page
// as it arrives, and (in another transaction) the reservation settled to what the answer used. The
// model is sent the question and the chosen documentation excerpts, nothing of the organization;
// neither the question nor the answer is logged or stored.
import { openPool } from "../../db/neon";
import { assertNoTransaction, inTransaction, type Connection } from "../../db/transaction";
import { sendAfterResponse } from "../analytics";
import { resolveModelPrice } from "../config/model-prices";
import { diagnose } from "../http/diagnosis";
import type { AppContext } from "../http/context";
import { Refusal } from "../http/refusal";
import { log } from "../log";
import { DIALECTS } from "../providers";
import { costMicros } from "../providers";
import { callProvider, messagesStreamUsage, readToEnd, sseReader, type Usage } from "../providers";
import { asSessionMember } from "../sessions";
import { sourcesOf, sseEvent, textDelta } from "./events";
import { nextReset, remaining } from "./limits";
import { ASSISTANT_MODEL, buildRequest, chooseExcerpts, tokenBound } from "./prompt";
import { assistantIsOn, unavailableReason } from "./status";
import { dayUsage, reserve, settle, type Reservation } from "./store";

const dialect = DIALECTS["messages-provider"];

export async function ask(c: AppContext, input: { orgId: string; question: string }): Promise<Response> {
  const { config } = c.var;
  const now = new Date();
  const retrieval = import("./retrieval");
  const prepared = await asSessionMember(c, input.orgId, null, async (tx, grant) => {
    const reason = unavailableReason(config, grant.role);
    if (reason) throw new Refusal(assistantIsOn(config) ? "forbidden" : "not_configured", reason);
    const excerpts = chooseExcerpts((await retrieval).rankedSections(input.question));
    const body = JSON.stringify(buildRequest(input.question, excerpts));
    return { excerpts, body, reservation: await reserve(tx, grant.personId, tokenBound(body), now) };
  });
  const { reservation } = prepared;
  const connect = c.var.database().connect;
  const started = Date.now();
  let upstream: Response;
  assertNoTransaction("The model provider");
  try {
    upstream = await callProvider(dialect.apiBase(config.modelProviders).replace(/\/+$/, "") + dialect.path, {
      method: "POST",
      headers: dialect.headers(config.cmsModelApiKey!, new Headers()),
      body: prepared.body,
    });
  } catch {
    await settleWith(connect, reservation, 0, false);
    throw new Refusal("provider_unreachable", "The assistant's model provider could not be reached; the question was not counted against your limits.");
  }
  if (!upstream.ok || !upstream.body) {
    await upstream.body?.cancel();
    await settleWith(connect, reservation, 0, false);
    report(c, input.orgId, started, upstream.status, null);
    throw new Refusal(
      "provider_unreachable",
      `The assistant's model provider refused the question (status ${upstream.status}); it was not counted against your limits.`,
    );
  }
  const sources = sourcesOf(prepared.excerpts, config.server.siteOrigins[0] ?? null);
  return new Response(relay(c, input.orgId, reservation, started, sources, upstream.body), {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}

async function settleWith(connect: () => Promise<Connection>, reservation: Reservation, used: number, counted = true) {
  return inTransaction(connect, { lookups: { person_id: reservation.personId } }, async (tx) => {
    await settle(tx, reservation, used, counted);
    return dayUsage(tx, reservation.personId, reservation.day);
  });
}

/**
 * The page's stream: the sources, the answer's text as it arrives, then the usage. The model's
 * answer is read to its end even when the page goes away, so what it used is counted; an answer that
 * never reports its usage keeps its whole reservation. The request's pool is gone by then: settling
 * opens and ends its own.
 */
function relay(
  c: AppContext,
  orgId: string,
  reservation: Reservation,
  started: number,
  sources: ReturnType<typeof sourcesOf>,
  upstream: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  let pageGone = false;
  const send = async (event: Uint8Array) => {
    if (!pageGone) await writer.write(event).catch(() => (pageGone = true));
  };
  const usage = messagesStreamUsage();
  let deltas: string[] = [];
  const read = sseReader((data) => {
    usage.event(data);
    const text = textDelta(data);
    if (text) deltas.push(text);
  });
  const { url, poolMax } = c.var.config.database;
  const pump = async () => {
    await send(sseEvent("sources", { sources }));
    const broken = await readToEnd(upstream, async (chunk) => {
      read(chunk);
      for (const text of deltas) await send(sseEvent("delta", { text }));
      deltas = [];
    });
    const used = usage.final();
    const pool = openPool(url, "svc_app", Math.min(poolMax, 1));
    try {
      const day = await settleWith(pool.connect, reservation, used ? used.inputTokens + used.outputTokens : reservation.tokens);
      if (broken || !used) await send(sseEvent("error", { error: "The model's answer broke off before it finished; ask again." }));
      else
        await send(
          sseEvent("usage", {
            inputTokens: used.inputTokens,
            outputTokens: used.outputTokens,
            remaining: remaining(day),
            resetsAt: nextReset(new Date()).toISOString(),
          }),
        );
    } catch (error) {
      // The reservation stays counted in full: the limits err on the side of the owner's day. Described, never quoted.
      const { kind, sqlState } = diagnose(error);
      log("error", "assistant.settle_failed", { kind, ...(sqlState ? { sqlState } : {}) });
      await send(sseEvent("error", { error: "The answer's usage could not be recorded; it counts in full against today's limits." }));
    } finally {
      await pool.end();
    }
    report(c, orgId, started, 200, used);
    if (!pageGone) await writer.close().catch(() => {});
  };
  c.executionCtx.waitUntil(pump());
  return readable;
}

/** One analytics event per model call, as the proxy sends for brokered calls: model, tokens, latency, cost; never the question or the answer. */
function report(c: AppContext, orgId: string, started: number, status: number, usage: Usage | null): void {
  const { analytics, modelPrices } = c.var.config;
  const price = resolveModelPrice(modelPrices, ASSISTANT_MODEL)?.price;
  sendAfterResponse(c.executionCtx, analytics, {
    event: "$ai_generation",
    orgId,
    properties: {
      $ai_model: ASSISTANT_MODEL,
      $ai_provider: dialect.provider,
      $ai_span_name: "website assistant",
      $ai_input_tokens: usage?.inputTokens ?? null,
      $ai_output_tokens: usage?.outputTokens ?? null,
      $ai_latency: (Date.now() - started) / 1000,
      $ai_trace_id: c.var.requestId,
      $ai_http_status: status,
      $ai_is_error: status >= 400,
      $ai_stream: true,
      ...(usage && price ? { $ai_total_cost_usd: costMicros(price, usage) / 1e6 } : {}),
    },
  });
}
