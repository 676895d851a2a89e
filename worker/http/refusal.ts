// Refusals on hand-written routes: thrown from anywhere, answered by the one error handler as the
// spec's Refusal shape `{ error, retryAfterSeconds? }`.
import { ERROR_CATALOG, type ErrorCode } from "./catalog";

export class Refusal extends Error {
  override readonly name: string = "Refusal";
  readonly status: number;
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
    return this.retryAfterSeconds === undefined
      ? { error: this.message }
      : { error: this.message, retryAfterSeconds: this.retryAfterSeconds };
  }
}
