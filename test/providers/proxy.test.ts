// The budgeted model proxy as the providers' own SDKs use it (baseURL at the proxy, an engine or CLI
// token as the key): plain and streamed answers pass through, the budget is charged what the answer
// reported, and the analytics vendor hears of each call without the organization's id.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { pseudonym } from "../../worker/analytics/client";
import { newTokenValue } from "../../worker/tokens/secret";
import { seedToken } from "../support/seed";
import {
  analyticsEvents,
  fakeCalls,
  fakeRefuses,
  PROXY,
  proxyEnv,
  seedProviderOrg,
  spendOf,
  SURROGATE_SECRET,
  uniqueKey,
  workerFetch,
} from "../support/providers";

// Built-in prices, US dollars per million tokens = micro-dollars per token.
const HAIKU = { model: "claude-haiku-4-5", input: 1, output: 5 };
const MINI = { model: "gpt-4o-mini", input: 0.15, output: 0.6 };
const cost = (price: { input: number; output: number }, input: number, output: number) => Math.ceil(input * price.input + output * price.output);

async function org() {
  const keys = { "messages-provider": uniqueKey("messages"), "chat-provider": uniqueKey("chat") };
  const seeded = await seedProviderOrg({ keys, budgets: { "messages-provider": 5, "chat-provider": 5 } });
  return { ...seeded, keys };
}

function messagesClient(token: string, worker = workerFetch()) {
  return new Anthropic({ apiKey: token, baseURL: `${PROXY}/messages-provider`, fetch: worker.fetch, maxRetries: 0 });
}

function chatClient(token: string, worker = workerFetch()) {
  return new OpenAI({ apiKey: token, baseURL: `${PROXY}/chat-provider/v1`, fetch: worker.fetch, maxRetries: 0 });
}

describe("the messages provider through @anthropic-ai/sdk", () => {
  it("answers a plain request with the organization's key and charges what the answer reported", async () => {
    const { orgId, engine, keys } = await org();
    const worker = workerFetch();
    const answer = await messagesClient(engine, worker).messages.create({
      model: HAIKU.model,
      max_tokens: 64,
      messages: [{ role: "user", content: "Say hello" }],
    });
    await worker.settled();
    expect(answer.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("word0") });
    const calls = await fakeCalls("messages", keys["messages-provider"]);
    expect(calls).toEqual([expect.objectContaining({ model: HAIKU.model, stream: false, maxTokens: 64 })]);
    expect(await spendOf(orgId, "messages-provider")).toEqual({
      spent: cost(HAIKU, answer.usage.input_tokens, answer.usage.output_tokens),
      reserved: 0,
      requests: 1,
    });
  });

  it("streams an answer as it arrives and reads its usage from message_start and message_delta", async () => {
    const { orgId, keys } = await org();
    const cli = (await seedToken(orgId, "cli")).token;
    const worker = workerFetch();
    const stream = messagesClient(cli, worker).messages.stream({ model: HAIKU.model, max_tokens: 64, messages: [{ role: "user", content: "Count" }] });
    const texts: string[] = [];
    stream.on("text", (text) => texts.push(text));
    const final = await stream.finalMessage();
    await worker.settled();
    expect(texts.length).toBeGreaterThan(1);
    expect(final.usage.output_tokens).toBe(16);
    expect(await fakeCalls("messages", keys["messages-provider"])).toEqual([expect.objectContaining({ stream: true })]);
    expect(await spendOf(orgId, "messages-provider")).toEqual({
      spent: cost(HAIKU, final.usage.input_tokens, final.usage.output_tokens),
      reserved: 0,
      requests: 1,
    });
  });
});

describe("the chat provider through openai", () => {
  it("answers a plain request, bounding an output the request left open", async () => {
    const { orgId, engine, keys } = await org();
    const worker = workerFetch();
    const answer = await chatClient(engine, worker).chat.completions.create({ model: MINI.model, messages: [{ role: "user", content: "Say hello" }] });
    await worker.settled();
    expect(answer.choices[0]!.message.content).toContain("word0");
    expect(await fakeCalls("chat", keys["chat-provider"])).toEqual([expect.objectContaining({ maxTokens: 4096, stream: false })]);
    expect(await spendOf(orgId, "chat-provider")).toEqual({
      spent: cost(MINI, answer.usage!.prompt_tokens, answer.usage!.completion_tokens),
      reserved: 0,
      requests: 1,
    });
  });

  it("streams, asking the provider for usage, and charges it", async () => {
    const { orgId, engine, keys } = await org();
    const worker = workerFetch();
    const stream = await chatClient(engine, worker).chat.completions.create({
      model: MINI.model,
      max_tokens: 32,
      stream: true,
      messages: [{ role: "user", content: "Count" }],
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage ??= chunk.usage;
    }
    await worker.settled();
    expect(text).toContain("word15");
    expect(usage).toMatchObject({ completion_tokens: 16 });
    expect(await fakeCalls("chat", keys["chat-provider"])).toEqual([expect.objectContaining({ stream: true, includeUsage: true })]);
    expect(await spendOf(orgId, "chat-provider")).toEqual({ spent: cost(MINI, usage!.prompt_tokens, usage!.completion_tokens), reserved: 0, requests: 1 });
  });
});

describe("model names as clients send them", () => {
  it("prices a dated snapshot as its model and sends the name as given", async () => {
    const { orgId, engine, keys } = await org();
    const worker = workerFetch();
    const answer = await messagesClient(engine, worker).messages.create({
      model: "claude-haiku-4-5-20251001",
      max_tokens: 16,
      messages: [{ role: "user", content: "Say hello" }],
    });
    await worker.settled();
    expect(await fakeCalls("messages", keys["messages-provider"])).toEqual([expect.objectContaining({ model: "claude-haiku-4-5-20251001" })]);
    expect(await spendOf(orgId, "messages-provider")).toEqual({
      spent: cost(HAIKU, answer.usage.input_tokens, answer.usage.output_tokens),
      reserved: 0,
      requests: 1,
    });
  });

  it("charges SVC_MODEL_PRICES's price over the built-in one, for the model's snapshots too", async () => {
    const { orgId, engine } = await org();
    const worker = workerFetch(proxyEnv({ SVC_MODEL_PRICES: "gpt-4o-mini=2/20" }));
    const answer = await chatClient(engine, worker).chat.completions.create({
      model: "gpt-4o-mini-2024-07-18",
      max_tokens: 16,
      messages: [{ role: "user", content: "Say hello" }],
    });
    await worker.settled();
    expect(await spendOf(orgId, "chat-provider")).toEqual({
      spent: cost({ input: 2, output: 20 }, answer.usage!.prompt_tokens, answer.usage!.completion_tokens),
      reserved: 0,
      requests: 1,
    });
  });
});

describe("refusals before any upstream call", () => {
  it("refuses a model with no price, naming SVC_MODEL_PRICES, and asks the provider nothing", async () => {
    const { orgId, engine, keys } = await org();
    const error = await chatClient(engine)
      .chat.completions.create({ model: "gpt-unpriced", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect(JSON.stringify((error as InstanceType<typeof OpenAI.APIError>).error)).toContain("SVC_MODEL_PRICES");
    expect(await fakeCalls("chat", keys["chat-provider"])).toEqual([]);
    expect((await spendOf(orgId, "chat-provider"))?.reserved ?? 0).toBe(0);
  });

  it("refuses a provider with no key stored, with a sentence, and asks the provider nothing", async () => {
    const { engine } = await seedProviderOrg({ budgets: { "messages-provider": 5 } });
    const before = await fakeCalls("messages", "");
    const response = await workerFetch().fetch(`${PROXY}/messages-provider/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": engine, "content-type": "application/json" },
      body: JSON.stringify({ model: HAIKU.model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.status).toBe(412);
    expect(response.headers.get("x-svc-error-code")).toBe("provider_key_missing");
    expect(await response.json()).toEqual({ error: expect.stringMatching(/no messages-provider key stored/) });
    expect(await fakeCalls("messages", "")).toEqual(before);
  });

  it("refuses without a token, or with a token of no organization", async () => {
    const send = (headers: Record<string, string>) =>
      workerFetch().fetch(`${PROXY}/chat-provider/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ model: MINI.model, messages: [] }),
      });
    expect((await send({})).status).toBe(401);
    expect((await send({ authorization: "Bearer svc_nonsense" })).status).toBe(401);
    expect((await send({ "x-api-key": "svc_nonsense" })).status).toBe(401);
  });
});

describe("upstream refusals", () => {
  it("are passed through with their status, and nothing is charged", async () => {
    const { orgId, engine, keys } = await org();
    await fakeRefuses("messages", keys["messages-provider"], 429, "Slow down (fake).");
    const error = await messagesClient(engine)
      .messages.create({ model: HAIKU.model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(429);
    expect(JSON.stringify((error as InstanceType<typeof Anthropic.APIError>).error)).toContain("Slow down (fake).");
    expect(await spendOf(orgId, "messages-provider")).toMatchObject({ spent: 0, reserved: 0 });
  });

  it("a provider that cannot be reached is 502 provider_unreachable, and its reservation is released", async () => {
    const { orgId, engine } = await org();
    const error = await messagesClient(engine, workerFetch(proxyEnv({ SVC_MESSAGES_PROVIDER_API_BASE: "http://127.0.0.1:1" })))
      .messages.create({ model: HAIKU.model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] }, { maxRetries: 0 })
      .catch((e: unknown) => e);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect(await spendOf(orgId, "messages-provider")).toMatchObject({ spent: 0, reserved: 0 });
  });
});

describe("outbound analytics", () => {
  it("reports each brokered call with model, provider, tokens, latency, trace and cost, and the organization only as a pseudonym", async () => {
    const { orgId, engine } = await org();
    const worker = workerFetch();
    const answer = await chatClient(engine, worker).chat.completions.create({ model: MINI.model, messages: [{ role: "user", content: "secret prompt text" }] });
    await worker.settled();
    const distinctId = await pseudonym(SURROGATE_SECRET, orgId);
    const events = (await analyticsEvents()).filter((event) => event.distinct_id === distinctId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      api_key: "phc_test_project",
      event: "$ai_generation",
      properties: {
        $ai_model: MINI.model,
        $ai_provider: "chat-provider",
        $ai_input_tokens: answer.usage!.prompt_tokens,
        $ai_output_tokens: answer.usage!.completion_tokens,
        $ai_latency: expect.any(Number),
        $ai_trace_id: expect.any(String),
        $ai_total_cost_usd: cost(MINI, answer.usage!.prompt_tokens, answer.usage!.completion_tokens) / 1e6,
      },
    });
    const everything = JSON.stringify(await analyticsEvents());
    expect(everything).not.toContain(orgId);
    expect(everything).not.toContain("secret prompt text");
    expect(everything).not.toContain("word0");
  });

  it("sends nothing unless the region, project key and surrogate secret are all set", async () => {
    const { orgId, engine } = await org();
    const worker = workerFetch(proxyEnv({ SVC_ANALYTICS_VENDOR_PROJECT_KEY: undefined }));
    await chatClient(engine, worker).chat.completions.create({ model: MINI.model, messages: [{ role: "user", content: "hi" }] });
    await worker.settled();
    const distinctId = await pseudonym(SURROGATE_SECRET, orgId);
    expect((await analyticsEvents()).filter((event) => event.distinct_id === distinctId)).toEqual([]);
  });
});

describe("input the provider would fetch or run itself", () => {
  const image = (source: Record<string, unknown>) => ({
    role: "user",
    content: [
      { type: "image", source },
      { type: "text", text: "What is this?" },
    ],
  });
  const messagesCases: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      "an image by address",
      { messages: [image({ type: "url", url: "https://example.com/cat.png" })] },
      /^The budgeted model proxy refuses a document or image given by a "url" source \(at `messages\[0\]\.content\[0\]\.source`\)/,
    ],
    [
      "a document by address",
      { messages: [{ role: "user", content: [{ type: "document", source: { type: "url", url: "https://example.com/big.pdf" } }] }] },
      /document or image given by a "url" source/,
    ],
    ["a stored file", { messages: [{ role: "user", content: [{ type: "document", source: { type: "file", file_id: "file_123" } }] }] }, /"file" source/],
    [
      "a document whose content holds an image by address",
      {
        system: [{ type: "text", text: "x" }],
        messages: [
          {
            role: "user",
            content: [
              { type: "document", source: { type: "content", content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }] } },
            ],
          },
        ],
      },
      /"url" source/,
    ],
    [
      "the web search server tool",
      { tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 5 }] },
      /server tool "web_search_20250305" \(at `tools\[0\]`\)/,
    ],
    [
      "the code execution server tool",
      {
        tools: [
          { name: "mine", input_schema: { type: "object" } },
          { type: "code_execution_20250825", name: "code_execution" },
        ],
      },
      /server tool "code_execution_20250825" \(at `tools\[1\]`\)/,
    ],
    ["remote tool servers", { mcp_servers: [{ type: "url", url: "https://example.com/mcp", name: "x" }] }, /remote tool servers/],
  ];

  it.each(messagesCases)("refuses %s in the messages dialect with 400, asking the provider nothing", async (_, more, sentence) => {
    const { orgId, engine, keys } = await org();
    const error = await messagesClient(engine)
      .messages.create({ model: HAIKU.model, max_tokens: 10, messages: [{ role: "user", content: "hi" }], ...more } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(400);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toEqual({ error: expect.stringMatching(sentence) });
    expect((error as InstanceType<typeof Anthropic.APIError>).headers?.get("x-svc-error-code")).toBe("invalid_request");
    expect(await fakeCalls("messages", keys["messages-provider"])).toEqual([]);
    expect((await spendOf(orgId, "messages-provider"))?.reserved ?? 0).toBe(0);
  });

  const chatCases: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      "an image by address",
      { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }] }] },
      /image given by address \(only `data:` addresses are inline\) \(at `messages\[0\]\.content\[0\]\.image_url`\)/,
    ],
    ["a stored file", { messages: [{ role: "user", content: [{ type: "file", file: { file_id: "file-123" } }] }] }, /a stored or addressed file/],
    ["web search", { web_search_options: {} }, /web search/],
    ["a tool the provider runs", { tools: [{ type: "web_search_preview" }] }, /tool type "web_search_preview"/],
  ];

  it.each(chatCases)("refuses %s in the chat dialect with 400, asking the provider nothing", async (_, more, sentence) => {
    const { engine, keys } = await org();
    const error = await chatClient(engine)
      .chat.completions.create({ model: MINI.model, messages: [{ role: "user", content: "hi" }], ...more } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    // The OpenAI client unwraps the Refusal's `error`: the sentence itself.
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toEqual(expect.stringMatching(sentence));
    expect(await fakeCalls("chat", keys["chat-provider"])).toEqual([]);
  });

  it("forwards inline images, the caller's own tools and a tool call's input as they are", async () => {
    const { engine, keys } = await org();
    const worker = workerFetch();
    const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    await messagesClient(engine, worker).messages.create({
      model: HAIKU.model,
      max_tokens: 10,
      tools: [
        { name: "lookup", input_schema: { type: "object" } },
        { type: "bash_20250124", name: "bash" },
      ],
      messages: [
        image({ type: "base64", media_type: "image/png", data: pixel }),
        // The caller's own tool was asked for a URL: its input is the caller's data, not fetched.
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "lookup", input: { source: { type: "url", url: "https://example.com" } } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "done" }] },
      ],
    } as never);
    await chatClient(engine, worker).chat.completions.create({
      model: MINI.model,
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
      messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${pixel}` } }] }],
    });
    await worker.settled();
    expect(await fakeCalls("messages", keys["messages-provider"])).toHaveLength(1);
    expect(await fakeCalls("chat", keys["chat-provider"])).toHaveLength(1);
  });
});

describe("a stranger's request", () => {
  const send = (headers: Record<string, string>, body: BodyInit) =>
    workerFetch().fetch(`${PROXY}/messages-provider/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      duplex: "half",
    } as RequestInit);

  it("is refused with 401 before its body is read: over the 16 MiB limit, not JSON, or never sent at all", async () => {
    const stranger = { "x-api-key": newTokenValue("engine") };
    const tooLarge = await send(stranger, new Uint8Array(16 * 1024 * 1024 + 1));
    expect(tooLarge.status).toBe(401);
    expect(tooLarge.headers.get("x-svc-error-code")).toBe("unauthenticated");
    expect((await send({ authorization: `Bearer ${newTokenValue("cli")}` }, "{ not json")).status).toBe(401);
    // A body that is never read: the proxy does not ask for a single chunk of it.
    let pulls = 0;
    const untouched = new ReadableStream<Uint8Array>({ pull: () => void pulls++ }, { highWaterMark: 0 });
    expect((await send(stranger, untouched)).status).toBe(401);
    expect(pulls).toBe(0);
  });

  it("still gets 413 for an organization's own token over the limit", async () => {
    const { engine } = await org();
    expect((await send({ "x-api-key": engine }, new Uint8Array(16 * 1024 * 1024 + 1))).status).toBe(413);
  });
});
