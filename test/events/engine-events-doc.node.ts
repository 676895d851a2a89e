// docs/engine-events.md and the quick start's event are what POST /v1/events accepts: each example is
// run through the route's own per-event validator, and every type the service acts on is named.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkEvent } from "../../worker/events/validate";
import { EVENT_TYPES } from "../../worker/known-event-types";
import { quickStartEvents } from "../e2e/support/quick-start";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const doc = read("docs/engine-events.md");

/** The ```json blocks of a Markdown text, parsed. */
const jsonBlocks = (markdown: string) => [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]!) as Record<string, unknown>);

/** Checked as if sent when it happened (the examples carry fixed dates, the window moves). */
const check = (event: Record<string, unknown>, index = 0) => checkEvent(event, index, Date.parse(String(event.occurredAt)), EVENT_TYPES);

describe("docs/engine-events.md", () => {
  it("holds examples the service accepts", () => {
    const examples = jsonBlocks(doc);
    expect(examples.length).toBeGreaterThan(10);
    for (const [index, example] of examples.entries()) expect(check(example, index), JSON.stringify(example)).toMatchObject({ ok: true });
  });

  it("names every type the service acts on, and no other", () => {
    const named = new Set([...doc.matchAll(/`((?:environment|run|verdict|artifact|golden|network|workload)\.[a-z_]+)`/g)].map((match) => match[1]!));
    expect(Object.keys(EVENT_TYPES.table).filter((type) => !type.endsWith(".*") && !named.has(type))).toEqual([]);
    expect([...named].filter((type) => !Object.hasOwn(EVENT_TYPES.table, type))).toEqual([]);
  });
});

describe("README.md's quick start", () => {
  it("sends an environment event with a preview address that the service accepts", () => {
    const [event, ...more] = quickStartEvents(read("README.md"), "2026-11-26T10:00:00Z");
    expect(more).toEqual([]);
    expect(check(event!)).toMatchObject({ ok: true });
    expect(event).toMatchObject({ type: expect.stringMatching(/^environment\./), payload: { preview_urls: [expect.stringMatching(/^https:/)] } });
  });
});
