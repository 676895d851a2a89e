// Pages the build renders from the published files: the API reference from the pinned OpenAPI copy
// and the error catalog page. Plain HTML, readable without JavaScript.
export const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

type Json = Record<string, any>;

const REF = "#/components/schemas/";

function schemaLink(schema: Json | undefined): string {
  if (!schema) return "";
  if (typeof schema.$ref === "string" && schema.$ref.startsWith(REF)) {
    const name = schema.$ref.slice(REF.length);
    return `<a href="#schema-${escapeHtml(name)}"><code>${escapeHtml(name)}</code></a>`;
  }
  return `<code>${escapeHtml(JSON.stringify(schema))}</code>`;
}

function operationHtml(path: string, method: string, op: Json): string {
  const security = (op.security as Json[] | undefined)?.flatMap((entry) => Object.keys(entry)) ?? [];
  const parameters = (op.parameters as Json[] | undefined) ?? [];
  const body = op.requestBody?.content?.["application/json"]?.schema as Json | undefined;
  const responses = Object.entries((op.responses ?? {}) as Record<string, Json>);
  return `<section class="operation" id="op-${escapeHtml(op.operationId ?? `${method}-${path}`)}">
<h3><span class="method">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code></h3>
<p>${escapeHtml(op.summary ?? "")}</p>
${op.description ? `<p>${escapeHtml(op.description)}</p>` : ""}
<p><strong>Authentication:</strong> ${security.length ? security.map((name) => `<code>${escapeHtml(name)}</code>`).join(" or ") : "none"}</p>
${parameters.length
    ? `<table><caption>Parameters</caption><tr><th>name</th><th>in</th><th>required</th><th>schema</th></tr>${parameters
      .map((p) => `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required ? "yes" : "no"}</td><td>${schemaLink(p.schema ?? p.content?.["application/json"]?.schema)}</td></tr>`)
      .join("")}</table>`
    : ""}
${body ? `<p><strong>Request body</strong> (JSON): ${schemaLink(body)}</p>` : ""}
<table><caption>Responses</caption><tr><th>status</th><th>meaning</th><th>body</th></tr>${responses
    .map(([status, response]) => `<tr><td>${escapeHtml(status)}</td><td>${escapeHtml(response.description ?? "")}</td><td>${schemaLink(response.content?.["application/json"]?.schema)}</td></tr>`)
    .join("")}</table>
</section>`;
}

/** The API reference: every operation of the pinned document by tag, then its schemas. */
export function apiReferenceHtml(doc: Json): string {
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = (op.tags as string[] | undefined)?.[0] ?? "other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(path, method, op)]);
    }
  }
  const tags = [...byTag.keys()].sort();
  const schemas = Object.entries((doc.components?.schemas ?? {}) as Record<string, Json>).sort(([a], [b]) => a.localeCompare(b));
  return `<h1>API reference</h1>
<p>The control plane's API, version <strong>${escapeHtml(String(doc.info?.version))}</strong> (OpenAPI ${escapeHtml(String(doc.openapi))}),
rendered from the copy this site pins: <a href="/openapi.json">/openapi.json</a>, built from site revision
<code>${escapeHtml(String(doc.info?.["x-site-revision"] ?? "unknown"))}</code>. A deployment describes itself at
<code>{base_url}/openapi.json</code>; an operation listed here that a deployment does not serve yet answers 404 there.</p>
<p>${escapeHtml(String(doc.info?.description ?? ""))}</p>
<nav class="toc"><ul>${tags.map((tag) => `<li><a href="#tag-${escapeHtml(tag)}">${escapeHtml(tag)}</a></li>`).join("")}<li><a href="#schemas">schemas</a></li></ul></nav>
${tags.map((tag) => `<h2 id="tag-${escapeHtml(tag)}">${escapeHtml(tag)}</h2>\n${byTag.get(tag)!.join("\n")}`).join("\n")}
<h2 id="schemas">Schemas</h2>
${schemas.map(([name, schema]) => `<section class="schema" id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></section>`).join("\n")}`;
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
export function errorsHtml(errors: readonly PublishedError[]): string {
  return `<h1>Errors</h1>
<p>Every refusal and failure the control plane answers carries one of these codes: in the
<code>x-svc-error-code</code> header of a refusal <code>{ "error": "...", "retryAfterSeconds"?: n }</code>, and as
<code>error.code</code> of a 500 ServerFailure together with its <code>requestId</code>. The same list is published as
<a href="/errors.v1.json">/errors.v1.json</a>; codes never change meaning or disappear.</p>
<table class="errors"><tr><th>code</th><th>status</th><th>message</th><th>what to do</th><th>retry safe</th><th>exit status</th></tr>
${errors
  .map((entry) => `<tr id="${escapeHtml(entry.code)}"><td><code>${escapeHtml(entry.code)}</code></td><td>${entry.status}</td><td>${escapeHtml(entry.message)}</td><td>${escapeHtml(entry.recovery)}</td><td>${entry.retrySafe ? "yes" : "no"}</td><td>${entry.exitStatus ?? ""}</td></tr>`)
  .join("\n")}
</table>`;
}

interface PublishedFinding {
  id: string;
  rule: string;
  title: string;
  severity: string;
  explanation: string;
}

export function lintFindingsHtml(findings: readonly PublishedFinding[]): string {
  return `<h1>Migration lint findings</h1>
<p>Findings about PostgreSQL migrations that are hazardous on a live database. Published as
<a href="/lint-findings.v1.json">/lint-findings.v1.json</a>; a finding's identifier never changes between releases (its rule
name and title may be reworded).</p>
${findings
  .map((finding) => `<section class="finding" id="${escapeHtml(finding.id)}"><h2><code>${escapeHtml(finding.id)}</code> ${escapeHtml(finding.title)}</h2>
<p><strong>Rule:</strong> <code>${escapeHtml(finding.rule)}</code> &middot; <strong>Severity:</strong> ${escapeHtml(finding.severity)}</p>
<p>${escapeHtml(finding.explanation)}</p></section>`)
  .join("\n")}`;
}
