// The one error domain code throws: a refusal carrying a catalog code (so its status and default
// sentence). Hand-written routes answer it as the spec's Refusal shape `{ error, retryAfterSeconds? }`
// (the one error handler); /rpc answers it in tRPC's envelope (worker/trpc/errors.ts).
import { ERROR_CATALOG, type CatalogStatus, type ErrorCode } from "./catalog";

export class Refusal extends Error {
  override readonly name: string = "Refusal";
  readonly status: CatalogStatus;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly retryAfterSeconds?: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? ERROR_CATALOG[code].message);
    this.status = ERROR_CATALOG[code].status;
  }

  body(): { error: string; retryAfterSeconds?: number } {
    return this.retryAfterSeconds === undefined ? { error: this.message } : { error: this.message, retryAfterSeconds: this.retryAfterSeconds };
  }
}
