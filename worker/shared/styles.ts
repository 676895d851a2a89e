// The one look shared by the console and the few pages the Worker renders itself (refused sign-in,
// device approval, the console-not-built page): system colours through CSS variables, dark and
// light following the system, readable at 360 px, visible keyboard focus.
export const BASE_CSS = `
:root{color-scheme:light dark;--bg:#fbfbfa;--fg:#1d1f21;--muted:#5c6166;--line:#d9dcdf;--panel:#fff;--accent:#1f5fbf;--accent-fg:#fff;--danger:#b3261e;--ok:#1e7a3c;--warn:#8a5a00}
@media (prefers-color-scheme:dark){:root{--bg:#15171a;--fg:#e6e8ea;--muted:#9aa1a8;--line:#33383e;--panel:#1d2024;--accent:#7fb0ff;--accent-fg:#0b1a30;--danger:#ff8a80;--ok:#7bd88f;--warn:#ffcc66}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
a{color:var(--accent)}
h1{font-size:1.5rem;margin:0 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
button,input,select,textarea{font:inherit;color:inherit}
button,.button{display:inline-block;padding:.4rem .9rem;border:1px solid var(--accent);border-radius:6px;background:var(--accent);color:var(--accent-fg);cursor:pointer;text-decoration:none}
button.secondary{background:transparent;color:var(--accent)}
button.danger{background:transparent;border-color:var(--danger);color:var(--danger)}
button:disabled{opacity:.6;cursor:progress}
input,select,textarea{padding:.35rem .5rem;border:1px solid var(--line);border-radius:6px;background:var(--panel);max-width:100%}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
label{display:inline-flex;flex-direction:column;gap:.2rem;margin:0 .75rem .5rem 0;font-size:.9rem;color:var(--muted)}
label>input,label>select,label>textarea{color:var(--fg);font-size:1rem}
/* A checkbox sits beside its sentence, not above it. */
label:has(>input[type=checkbox]){flex-direction:row;align-items:center;gap:.4rem}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:break-word}
th{color:var(--muted);font-weight:600}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;overflow-wrap:anywhere}
.narrow{max-width:36rem;margin:4rem auto;padding:0 1rem}
.muted{color:var(--muted)}
.ok{color:var(--ok)}.warn{color:var(--warn)}.danger{color:var(--danger)}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:1rem;margin:0 0 1rem}
`;
