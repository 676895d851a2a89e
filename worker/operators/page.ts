// The operator portal's one document, in the look the console shares (worker/shared/styles.ts). Its
// script (sign-in, then the admin.* procedures) is console/src/operator-portal.ts, built with the console
// into /operator-portal.js and served with its assets: the Worker's upload stays small, and without a console build the page says so.
import { html } from "hono/html";
import { htmlDocument, page } from "../http/pages";

export const portalOffPage = () =>
  page(
    "The operator portal is off",
    html`<p>This control plane serves no operator portal because <code>SVC_ADMIN_DATABASE_URL</code> is not set.</p>
<p class="muted">Set it to the operator role's connection string and restart.</p>`,
  );

const PORTAL_CSS = `
header{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between;padding:.75rem 1rem;border-bottom:1px solid var(--line);background:var(--panel)}
header nav a{margin-right:1rem}header nav a[aria-current=page]{font-weight:700;text-decoration:none}
main{max-width:72rem;margin:1.5rem auto;padding:0 1rem}
.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
.row label{margin-bottom:0}
td .row{gap:.35rem}
.badge{display:inline-block;padding:0 .4rem;border-radius:4px;border:1px solid currentColor;font-size:.85rem}
details pre{white-space:pre-wrap;font-size:.8rem}
`;

export const portalPage = () =>
  htmlDocument(
    "Operator portal",
    html`<header><strong>Operator portal</strong><nav id="nav" hidden><a href="/admin/organizations" data-page="organizations">Organizations</a><a href="/admin/leads" data-page="leads">Leads</a><a href="/admin/failures" data-page="failures">Failures</a><a href="/admin/operators" data-page="operators">Operators</a></nav><span id="who"></span></header>
<p id="status" role="status" aria-live="polite" style="max-width:72rem;margin:.75rem auto 0;padding:0 1rem"></p>
<main><p class="muted">Loading the portal… If this stays, the console's assets are not built (<code>npm run build:console</code>).</p></main>
<script type="module" src="/operator-portal.js"></script>`,
    PORTAL_CSS,
  );
