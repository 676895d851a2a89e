// What the model is sent: the question and the documentation excerpts chosen for it, nothing of the
// organization. Pure, so the node tests pin what goes out.
import type { DocSection } from "./search";

/** The model the assistant asks (the messages API), and the most it may answer. */
export const ASSISTANT_MODEL = "claude-haiku-4-5";
export const MAX_OUTPUT_TOKENS = 1024;

export const QUESTION_MAX_CHARS = 2000;
/** How many sections an answer may draw on, and how much of their text goes to the model in all. */
export const MAX_SOURCES = 4;
export const EXCERPT_BUDGET_CHARS = 5000;

export type Excerpt = Pick<DocSection, "title" | "path" | "text">;

/**
 * The best-ranked sections that fit the budget, in rank order; a section that does not fit whole is
 * cut to what is left (the first always goes, cut if need be). One section per page anchor: the
 * parts of a long section are read as one source.
 */
export function chooseExcerpts(ranked: readonly Excerpt[], budget = EXCERPT_BUDGET_CHARS, max = MAX_SOURCES): Excerpt[] {
  const chosen: Excerpt[] = [];
  let left = budget;
  for (const section of ranked) {
    if (chosen.length === max || left <= 0) break;
    const same = chosen.find((excerpt) => excerpt.path === section.path && excerpt.title === section.title);
    const text = section.text.length <= left ? section.text : section.text.slice(0, left);
    if (same) same.text += ` ${text}`;
    else chosen.push({ ...section, text });
    left -= text.length;
  }
  return chosen;
}

const SYSTEM = [
  "You answer questions from the owners of an organization about using this control plane service: its console, CLI, engine, API and errors.",
  "Answer only from the documentation excerpts below. When they do not answer the question, say so and point to the closest page.",
  "Cite the excerpts you used by their number, like [1]. Be brief and concrete; give commands and addresses exactly as the excerpts do.",
].join(" ");

/** The messages API request (streamed), for `question` and its excerpts. */
export function buildRequest(question: string, excerpts: readonly Excerpt[]) {
  const documentation = excerpts.map((excerpt, i) => `[${i + 1}] ${excerpt.title} (${excerpt.path})\n${excerpt.text}`).join("\n\n");
  return {
    model: ASSISTANT_MODEL,
    max_tokens: MAX_OUTPUT_TOKENS,
    stream: true,
    system: `${SYSTEM}\n\nDocumentation excerpts:\n\n${documentation || "(none matched the question)"}`,
    messages: [{ role: "user", content: question }],
  };
}

/**
 * The most tokens the request can use: one input token per byte of the body at most (as the model
 * proxy bounds it), plus the output bound. What is reserved before the call.
 */
export const tokenBound = (body: string): number => new TextEncoder().encode(body).byteLength + MAX_OUTPUT_TOKENS;
