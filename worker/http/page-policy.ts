// The page policy's text, apart from the middleware (worker/http/page-headers.ts) so the Node-side
// tests can hold console/public/_headers to it.

/** The policy; `nonce` admits the inline scripts of one response. */
export function contentSecurityPolicy(nonce?: string): string {
  return [
    "default-src 'self'",
    `script-src 'self'${nonce ? ` 'nonce-${nonce}'` : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export const FRAME_OPTIONS = "DENY";
