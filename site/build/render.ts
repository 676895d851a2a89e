// Pages the build renders from the published files: the API reference from the pinned OpenAPI copy
// and the error catalog page. Plain HTML, readable without JavaScript, written with hono's `html`
// template, which escapes every interpolated value (as the Worker's own pages are).
import { html } from "hono/html";

/** Markup built with `html`: a value of this type is already escaped, a plain string never is. */
export type Html = ReturnType<typeof html>;

/** The markup as text; the build's templates hold no asynchronous part. */
export function htmlText(markup: Html): string {
  if (markup instanceof Promise) throw new Error("a page template produced a promise");
  return markup.toString();
}

type Json = Record<string, any>;

const REF = "#/components/schemas/";

function schemaLink(schema: Json | undefined): Html | "" {
  if (!schema) return "";
  if (typeof schema.$ref === "string" && schema.$ref.startsWith(REF)) {
    const name = schema.$ref.slice(REF.length);
    return html`<a href="#schema-${name}"><code>${name}</code></a>`;
  }
  return html`<code>${JSON.stringify(schema)}</code>`;
}

function operationHtml(path: string, method: string, op: Json): Html {
  const security = (op.security as Json[] | undefined)?.flatMap((entry) => Object.keys(entry)) ?? [];
  const parameters = (op.parameters as Json[] | undefined) ?? [];
  const body = op.requestBody?.content?.["application/json"]?.schema as Json | undefined;
  const responses = Object.entries((op.responses ?? {}) as Record<string, Json>);
  return html`<section class="operation" id="op-${op.operationId ?? `${method}-${path}`}">
<h3><span class="method">${method.toUpperCase()}</span> <code>${path}</code></h3>
<p>${op.summary ?? ""}</p>
${op.description ? html`<p>${op.description}</p>` : ""}
<p><strong>Authentication:</strong> ${security.length ? security.map((name, i) => html`${i ? " or " : ""}<code>${name}</code>`) : "none"}</p>
${
  parameters.length
    ? html`<table><caption>Parameters</caption><tr><th>name</th><th>in</th><th>required</th><th>schema</th></tr>${parameters.map(
        (p) =>
          html`<tr><td><code>${p.name}</code></td><td>${p.in}</td><td>${p.required ? "yes" : "no"}</td><td>${schemaLink(p.schema ?? p.content?.["application/json"]?.schema)}</td></tr>`,
      )}</table>`
    : ""
}
${body ? html`<p><strong>Request body</strong> (JSON): ${schemaLink(body)}</p>` : ""}
<table><caption>Responses</caption><tr><th>status</th><th>meaning</th><th>body</th></tr>${responses.map(
    ([status, response]) =>
      html`<tr><td>${status}</td><td>${response.description ?? ""}</td><td>${schemaLink(response.content?.["application/json"]?.schema)}</td></tr>`,
  )}</table>
</section>`;
}

/** The API reference: every operation of the pinned document by tag, then its schemas. */
export function apiReferenceHtml(doc: Json): Html {
  const byTag = new Map<string, Html[]>();
  for (const [path, methods] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = (op.tags as string[] | undefined)?.[0] ?? "other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(path, method, op)]);
    }
  }
  const tags = [...byTag.keys()].sort();
  const schemas = Object.entries((doc.components?.schemas ?? {}) as Record<string, Json>).sort(([a], [b]) => a.localeCompare(b));
  return html`<h1>API reference</h1>
<p>The control plane's API, version <strong>${String(doc.info?.version)}</strong> (OpenAPI ${String(doc.openapi)}),
rendered from the copy this site pins: <a href="/openapi.json">/openapi.json</a>, built from site revision
<code>${String(doc.info?.["x-site-revision"] ?? "unknown")}</code>. A deployment describes itself at
<code>{base_url}/openapi.json</code>; an operation listed here that a deployment does not serve yet answers 404 there.</p>
<p>${String(doc.info?.description ?? "")}</p>
<nav class="toc"><ul>${tags.map((tag) => html`<li><a href="#tag-${tag}">${tag}</a></li>`)}<li><a href="#schemas">schemas</a></li></ul></nav>
${tags.map((tag) => html`<h2 id="tag-${tag}">${tag}</h2>\n${byTag.get(tag)!.map((operation) => html`${operation}\n`)}`)}
<h2 id="schemas">Schemas</h2>
${schemas.map(([name, schema]) => html`<section class="schema" id="schema-${name}"><h3>${name}</h3><pre>${JSON.stringify(schema, null, 2)}</pre></section>\n`)}`;
}

interface PublishedError {
  code: string;
  status: number;
  message: string;
  recovery: string;
  retrySafe: boolean;
  exitStatus: number | null;
}

/** The error catalog page; each code's anchor is the documentation link errors.v1.json gives. */
export function errorsHtml(errors: readonly PublishedError[]): Html {
  return html`<h1>Errors</h1>
<p>Every refusal and failure the control plane answers carries one of these codes: in the
<code>x-svc-error-code</code> header of a refusal <code>{ "error": "...", "retryAfterSeconds"?: n }</code>, and as
<code>error.code</code> of a 500 ServerFailure together with its <code>requestId</code>. The same list is published as
<a href="/errors.v1.json">/errors.v1.json</a>; codes never change meaning or disappear.</p>
<table class="errors"><tr><th>code</th><th>status</th><th>message</th><th>what to do</th><th>retry safe</th><th>exit status</th></tr>
${errors.map((entry) => html`<tr id="${entry.code}"><td><code>${entry.code}</code></td><td>${entry.status}</td><td>${entry.message}</td><td>${entry.recovery}</td><td>${entry.retrySafe ? "yes" : "no"}</td><td>${entry.exitStatus ?? ""}</td></tr>\n`)}</table>`;
}

interface PublishedFinding {
  id: string;
  rule: string;
  title: string;
  severity: string;
  explanation: string;
}

export function lintFindingsHtml(findings: readonly PublishedFinding[]): Html {
  return html`<h1>Migration lint findings</h1>
<p>Findings about PostgreSQL migrations that are hazardous on a live database. Published as
<a href="/lint-findings.v1.json">/lint-findings.v1.json</a>; a finding's identifier never changes between releases (its rule
name and title may be reworded).</p>
${findings.map(
  (finding) => html`<section class="finding" id="${finding.id}"><h2><code>${finding.id}</code> ${finding.title}</h2>
<p><strong>Rule:</strong> <code>${finding.rule}</code> &middot; <strong>Severity:</strong> ${finding.severity}</p>
<p>${finding.explanation}</p></section>\n`,
)}`;
}
