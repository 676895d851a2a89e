// The site's generated pages (API reference, errors, lint findings) escape whatever the published files
// hold: text that looks like markup stays text, and a value cannot leave its attribute.
import { describe, expect, it } from "vitest";
import { apiReferenceHtml, errorsHtml, htmlText, lintFindingsHtml } from "../../site/build/render";

const HOSTILE = `<script>alert(1)</script>"' onmouseover="x`;
const ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39; onmouseover=&quot;x";

describe("the site's generated pages", () => {
  it("escape an error's code, message and recovery", () => {
    const page = htmlText(errorsHtml([{ code: HOSTILE, status: 400, message: HOSTILE, recovery: HOSTILE, retrySafe: false, exitStatus: null }]));
    expect(page).not.toContain("<script>");
    expect(page).toContain(`<tr id="${ESCAPED}"><td><code>${ESCAPED}</code></td><td>400</td><td>${ESCAPED}</td><td>${ESCAPED}</td>`);
  });

  it("escape an operation's path, summary, parameters and schemas, and keep the links between them", () => {
    const doc = {
      openapi: "3.1.0",
      info: { version: "1.0.0", description: HOSTILE },
      paths: {
        "/v1/x": {
          post: {
            tags: [HOSTILE],
            summary: HOSTILE,
            security: [{ a: [] }, { b: [] }],
            parameters: [{ name: HOSTILE, in: "query", schema: { $ref: "#/components/schemas/Thing" } }],
            responses: { 200: { description: HOSTILE } },
          },
        },
      },
      components: { schemas: { Thing: { description: HOSTILE } } },
    };
    const page = htmlText(apiReferenceHtml(doc));
    expect(page).not.toContain("<script>");
    expect(page).toContain(`<h2 id="tag-${ESCAPED}">${ESCAPED}</h2>`);
    expect(page).toContain(`<td><code>${ESCAPED}</code></td><td>query</td><td>no</td><td><a href="#schema-Thing"><code>Thing</code></a></td>`);
    expect(page).toContain("<code>a</code> or <code>b</code>");
    expect(page).toContain('<section class="schema" id="schema-Thing">');
  });

  it("escape a lint finding's every field", () => {
    const page = htmlText(lintFindingsHtml([{ id: HOSTILE, rule: HOSTILE, title: HOSTILE, severity: HOSTILE, explanation: HOSTILE }]));
    expect(page).not.toContain("<script>");
    expect(page).toContain(`<section class="finding" id="${ESCAPED}"><h2><code>${ESCAPED}</code> ${ESCAPED}</h2>`);
  });
});
