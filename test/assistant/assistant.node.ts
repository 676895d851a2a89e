// The website assistant's pure parts: how the documentation is cut into sections, which excerpts a
// question gets, what the model is sent, the daily limits' day and sentences, the page's events.
import { describe, expect, it } from "vitest";
import { apiSections, cut, docSections, pagePath, pageSections } from "../../scripts/assistant-docs";
import { sourcesOf, sseEvent, textDelta } from "../../worker/assistant/events";
import { DAILY_TOKENS, limitSentence, nextReset, remaining, secondsUntilReset, untilReset, utcDay } from "../../worker/assistant/limits";
import { buildRequest, chooseExcerpts, MAX_OUTPUT_TOKENS, tokenBound } from "../../worker/assistant/prompt";
import { rankedSections } from "../../worker/assistant/retrieval";

const ROOT = new URL("../../", import.meta.url).pathname;

describe("the documentation's sections", () => {
  it("cuts a page at its headings, each linked to its anchor, with the markup stripped", () => {
    const page =
      '<!-- title: Getting started -->\n<h1>Getting started</h1>\n<p>Intro &amp; more.</p>\n<h2 id="cli">3. The CLI</h2>\n<p>Run <code>svc login</code>.</p>';
    expect(pageSections(page, "/docs/")).toEqual([
      { title: "Getting started", path: "/docs/", text: "Intro & more." },
      { title: "Getting started: 3. The CLI", path: "/docs/#cli", text: "Run svc login ." },
    ]);
  });

  it("names pages by their site path", () => {
    expect([pagePath("index.html"), pagePath("docs/index.html"), pagePath("docs/events.html"), pagePath("pricing.html")]).toEqual([
      "/",
      "/docs/",
      "/docs/events",
      "/pricing",
    ]);
  });

  it("takes each operation of docs/api.md under its tag and leaves the schemas out", () => {
    const markdown =
      "# API reference\n\nIntro.\n\n## auth\n\n### `POST /v1/x`\n\nDoes [x](#schema-x).\n\n| a | b |\n| --- | --- |\n\n## Schemas\n\n### X\n\nshape";
    expect(apiSections(markdown)).toEqual([{ title: "API: POST /v1/x", path: "/docs/api#tag-auth", text: "Does x. a b" }]);
  });

  it("cuts a long section at sentence ends, no part longer than the limit", () => {
    const parts = cut("One sentence here. ".repeat(200).trim(), 300);
    expect(parts.length).toBeGreaterThan(10);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(300);
    expect(parts.join(" ")).toBe("One sentence here. ".repeat(200).trim());
  });

  it("covers the site's pages, the API reference and every error code", () => {
    const paths = new Set(docSections(ROOT).map((section) => section.path.replace(/#.*/, "")));
    expect([...paths].sort()).toEqual(expect.arrayContaining(["/", "/docs/", "/docs/events", "/docs/api", "/docs/errors", "/pricing"]));
  });

  it("finds the getting-started guide for a question about connecting a repository", () => {
    const chosen = chooseExcerpts(rankedSections("how do I connect my repository?"));
    expect(chosen.map((excerpt) => excerpt.path)).toContain("/docs/#engine");
  });
});

describe("what the model is sent", () => {
  const ranked = [
    { title: "A", path: "/a", text: "a".repeat(3000) },
    { title: "A", path: "/a", text: "b".repeat(100) },
    { title: "B", path: "/b", text: "c".repeat(3000) },
    { title: "C", path: "/c", text: "d".repeat(10) },
  ];

  it("takes the best sections within the character budget, a section's parts as one source", () => {
    const chosen = chooseExcerpts(ranked, 5000);
    expect(chosen.map((excerpt) => [excerpt.path, excerpt.text.length])).toEqual([
      ["/a", 3101],
      ["/b", 1900],
    ]);
    expect(chooseExcerpts(ranked, 10_000, 2).map((excerpt) => excerpt.path)).toEqual(["/a", "/b"]);
  });

  it("is the question and the excerpts, numbered with their pages, streamed and bounded", () => {
    const request = buildRequest("How do I claim?", [{ title: "Claims", path: "/docs/#engine", text: "Claim it with the CLI." }]);
    expect(request).toMatchObject({ stream: true, max_tokens: MAX_OUTPUT_TOKENS, messages: [{ role: "user", content: "How do I claim?" }] });
    expect(request.system).toContain("[1] Claims (/docs/#engine)\nClaim it with the CLI.");
    expect(Object.keys(request).sort()).toEqual(["max_tokens", "messages", "model", "stream", "system"]);
  });

  it("reserves one token per byte of the request plus the output bound", () => {
    expect(tokenBound("ééa")).toBe(5 + MAX_OUTPUT_TOKENS);
  });
});

describe("the daily limits", () => {
  const now = new Date("2026-11-26T20:47:30Z");

  it("count per UTC day and reset at the next 00:00 UTC", () => {
    expect(utcDay(now)).toBe("2026-11-26");
    expect(nextReset(now).toISOString()).toBe("2026-11-27T00:00:00.000Z");
    expect(secondsUntilReset(now)).toBe(3 * 3600 + 12 * 60 + 30);
    expect(untilReset(now)).toBe("3 hours 13 minutes");
    expect(untilReset(new Date("2026-11-26T23:59:59Z"))).toBe("1 minute");
  });

  it("say which limit was reached and when it resets", () => {
    expect(limitSentence({ requests: 40, usedTokens: 0, reservedTokens: 0 }, 100, now)).toBe(
      "You have asked the assistant 40 questions today, its daily limit. The limits reset at 00:00 UTC (in 3 hours 13 minutes).",
    );
    expect(limitSentence({ requests: 3, usedTokens: 170_000, reservedTokens: 5_000 }, 9_000, now)).toBe(
      "This question could use up to 9,000 tokens, more than the 5,000 left of your 180,000 for today. The limits reset at 00:00 UTC (in 3 hours 13 minutes).",
    );
    expect(remaining({ requests: 41, usedTokens: DAILY_TOKENS, reservedTokens: 10 })).toEqual({ requests: 0, tokens: 0 });
  });
});

describe("the page's events", () => {
  it("carry the sources with their site address, then the answer's text", () => {
    expect(sourcesOf([{ title: "T", path: "/docs/#cli", text: "x" }], "https://site.example")).toEqual([{ title: "T", url: "https://site.example/docs/#cli" }]);
    expect(sourcesOf([{ title: "T", path: "/docs/", text: "x" }], null)).toEqual([{ title: "T", url: "/docs/" }]);
    expect(new TextDecoder().decode(sseEvent("delta", { text: "hi" }))).toBe('event: delta\ndata: {"text":"hi"}\n\n');
    expect(textDelta({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: " word" } })).toBe(" word");
    expect(textDelta({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{" } })).toBeNull();
    expect(textDelta({ type: "message_delta", usage: { output_tokens: 3 } })).toBeNull();
  });
});
