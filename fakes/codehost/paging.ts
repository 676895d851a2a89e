// Lists paged as the code host pages them: `per_page` (default 30, at most 100) and `page` (from 1),
// with a `Link` header of absolute addresses on the fake's own origin (`first`, `prev`, `next`,
// `last`, as each applies; none when everything fits on one page). A control route makes one page of
// a list misbehave: answer an error status, or link its next page somewhere else.
import { fields, json, type FakeRequest, type FakeResponse, type Route } from "./http";

interface Fault {
  status?: number;
  /** Replaces the page's `Link` header with a `next` link to this address. */
  next?: string;
}

const whole = (text: string | null, fallback: number) => (text !== null && /^\d+$/.test(text) ? Number(text) : fallback);

export class FakePaging {
  /** By "<path>#<page>"; the path compares case-insensitively, like the code host's. */
  private readonly faults = new Map<string, Fault>();

  /** The page of `entries` that the request asks for, or the fault set for it. */
  page(request: FakeRequest, entries: unknown[]): FakeResponse {
    const query = request.url.searchParams;
    const perPage = Math.min(Math.max(whole(query.get("per_page"), 30), 1), 100);
    const page = Math.max(whole(query.get("page"), 1), 1);
    const fault = this.faults.get(`${request.url.pathname.toLowerCase()}#${page}`);
    if (fault?.status !== undefined) return json(fault.status, { message: "Server Error" });
    const last = Math.max(Math.ceil(entries.length / perPage), 1);
    const at = (rel: string, number: number) => {
      const url = new URL(request.url);
      url.searchParams.set("page", String(number));
      return `<${url}>; rel="${rel}"`;
    };
    const links = [
      ...(page > 1 ? [at("prev", Math.min(page - 1, last)), at("first", 1)] : []),
      ...(page < last ? [at("next", page + 1), at("last", last)] : []),
    ];
    const link = fault?.next !== undefined ? `<${fault.next}>; rel="next"` : links.join(", ");
    return { status: 200, json: entries.slice((page - 1) * perPage, page * perPage), ...(link ? { headers: { link } } : {}) };
  }

  routes(): Route[] {
    return [
      // { path, page, status?, next? }: that page of the list at `path` answers `status`, or links its
      // next page to `next`; { path, page } alone puts it right again.
      [
        "POST",
        /^\/_fake\/list-faults$/,
        (request) => {
          const body = fields(request) as { path?: unknown; page?: unknown; status?: unknown; next?: unknown };
          if (typeof body.path !== "string" || typeof body.page !== "number") return json(400, { message: "path and page are required" });
          const key = `${body.path.toLowerCase()}#${body.page}`;
          if (typeof body.status !== "number" && typeof body.next !== "string") this.faults.delete(key);
          else
            this.faults.set(key, {
              ...(typeof body.status === "number" ? { status: body.status } : {}),
              ...(typeof body.next === "string" ? { next: body.next } : {}),
            });
          return { status: 204 };
        },
      ],
    ];
  }
}
