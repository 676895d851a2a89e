// A hand-written route is one value: how it is called (path parameters, query, body), what it answers
// (a schema per status), who may call it, its side of the plan gate, and its handler. `register` mounts it behind the one
// validation hook and marks its handler, so /openapi.json is built from what the app serves.
import type { Hono, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type * as z from "zod";
import { planGate } from "../http/plan-gate";
import type { GateSide } from "../http/context";
import type { AppContext, AppEnv } from "../http/context";
import { readBody, validate, type BodyOptions } from "../http/input";
import { Refusal } from "../http/refusal";
import { RefusalShape, ServerFailureShape } from "../http/shapes";
import type { Permission } from "../shared/permissions";

export type Security = "engineToken" | "cliToken" | "session" | "commitCredential";

export interface ResponseDoc<S extends z.ZodType = z.ZodType> {
  description: string;
  schema?: S;
  headers?: Record<string, string>;
}

export type Responses = Record<number, ResponseDoc>;

/** What /openapi.json says of one operation: a route's declaration, or a console procedure. */
export interface OperationDoc {
  method: "get" | "post" | "put" | "delete";
  /** OpenAPI form: `/v1/things/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  security?: Security[];
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body's size limit and what an empty body means (worker/http/input.ts). */
  bodyOptions?: BodyOptions;
  /** The console RPC: a query's input, JSON-encoded in the one `input` query parameter. */
  rpcInput?: z.ZodType;
  responses: Responses;
}

declare const replied: unique symbol;
/** A response made by `reply`, so a handler cannot answer with a body its declaration does not name. */
export type Replied = Response & { readonly [replied]: true };

type BodyOf<D> = D extends { schema: infer S extends z.ZodType } ? z.input<S> : never;
export type Reply<R extends Responses> = <S extends keyof R & number>(status: S, body: BodyOf<R[S]>) => Replied;

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface Route<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends Responses = Responses,
> extends OperationDoc {
  params?: P;
  query?: Q;
  body?: B;
  /** What a path parameter failing `params` answers, where the spec says more than 400 (an unknown id). */
  paramsRefusal?: () => Refusal;
  /**
   * What the caller needs when the organization is the credential's own (a CLI token's): checked,
   * with the token, before refused input is answered (authorize, then validate). Where the input
   * names the organization (a session route's `orgId`), the handler checks it once that is valid.
   */
  permission?: Permission | null;
  /** An engine route a suspended organization still reaches (the command claim: a way out); others answer it 403. */
  allowSuspended?: true;
  responses: R;
  /**
   * Its side of the required-plan gate (worker/http/plan-gate.ts): "gated" routes refuse an
   * organization without the plan; a route acting for no organization is "reachable".
   */
  gate: GateSide;
  /** Runs before the hook (a route whose token is checked before its input is read). */
  middleware?: MiddlewareHandler<AppEnv>[];
  /** False: served and validated alike, left out of /openapi.json (the spec lists what it carries). */
  published?: false;
  handler: (c: AppContext, request: { params: Parsed<P>; query: Parsed<Q>; body: Parsed<B>; reply: Reply<R> }) => Promise<Replied> | Replied;
}

/** A route whatever its schemas. */
export type AnyRoute = Route<any, any, any, any>;

/** Declares a route; the compiler checks every `reply` against the schema of its status. */
export const route = <
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends Responses = Responses,
>(
  declaration: Route<P, Q, B, R>,
): Route<P, Q, B, R> => declaration;

export const refusal = (description: string, headers?: Record<string, string>): ResponseDoc<typeof RefusalShape> => ({
  description,
  schema: RefusalShape,
  ...(headers ? { headers } : {}),
});

export const serverFailure: ResponseDoc<typeof ServerFailureShape> = { description: "Unexpected failure", schema: ServerFailureShape };

/** Hono's form of an OpenAPI path: `{id}` becomes `:id`. */
export const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

/** Whether a request carries a bearer credential at all (for a scheme's `carried`). */
export const carriesBearer = (c: AppContext) => Boolean(c.req.header("authorization"));

/**
 * How a declared security scheme knows its caller: whether the request carries the credential at all
 * (a request carrying none of a route's schemes is refused before anything is read), and the full
 * check of what does not depend on the input (a live credential, a session's CSRF header on a change,
 * a token's organization not suspended and its plan, a CLI token's declared permission), which throws
 * the spec's Refusal. The capabilities that own each credential implement them; the composition root
 * sets the table on every request (worker/credentials.ts), so this builder knows none of them.
 */
export interface CredentialCheck {
  carried: (c: AppContext) => boolean;
  check: (c: AppContext, declared: Pick<AnyRoute, "permission" | "allowSuspended">) => Promise<unknown>;
}

export type CredentialChecks = Record<Security, CredentialCheck>;

declare module "hono" {
  interface ContextVariableMap {
    /** How each security scheme's credential is checked (worker/credentials.ts). */
    credentials: CredentialChecks;
  }
}

/** What to send, for a refusal naming the schemes a route takes. */
const SEND: Record<Security, string> = {
  engineToken: "an engine token as an HTTP bearer",
  cliToken: "a CLI token as an HTTP bearer",
  commitCredential: "the commit credential as an HTTP bearer",
  session: "a browser session (sign in first)",
};

/** A credentialed route refuses a request carrying none of its schemes' credentials before reading anything of it. */
function requireCredential(c: AppContext, schemes: readonly Security[]): void {
  if (schemes.length && !schemes.some((name) => c.var.credentials[name].carried(c)))
    throw new Refusal("unauthenticated", `Send ${schemes.map((name) => SEND[name]).join(", or ")}.`);
}

/**
 * Input refused on a credentialed route: the caller is checked first, so a stranger gets 401 (and a
 * token without the route's permission, or of a suspended organization, 403) and learns nothing of
 * the route's schema: who, then what. A caller whose input is valid pays nothing for this: the handler checks the credential in the
 * transaction that does its work.
 */
async function checkCallerBeforeRefusing(c: AppContext, declared: AnyRoute, schemes: readonly Security[], refused: unknown): Promise<never> {
  if (!(refused instanceof Refusal) || !schemes.length) throw refused;
  const failures = await Promise.all(
    schemes
      .map((name) => c.var.credentials[name])
      .filter((scheme) => scheme.carried(c))
      .map((scheme) =>
        scheme.check(c, declared).then(
          () => null,
          (failure: unknown) => failure,
        ),
      ),
  );
  // One scheme that knows the caller is enough; otherwise the first scheme's refusal.
  throw failures.includes(null) ? refused : failures[0];
}

function parseParams(c: AppContext, declared: AnyRoute) {
  if (!declared.paramsRefusal) return validate(declared.params, c.req.param());
  const parsed = declared.params.safeParse(c.req.param());
  if (!parsed.success) throw declared.paramsRefusal();
  return parsed.data;
}

const DECLARATION = Symbol("route declaration");
type Marked = { [DECLARATION]?: AnyRoute };

/**
 * Mounts `declared`: its plan-gate side, its middleware, then the hook (path parameters, query and body validated with
 * the declared schemas; a failure is the spec's 400 Refusal unless `paramsRefusal` says otherwise),
 * then the handler with what was parsed and a `reply` typed by the declared responses.
 */
export function register<P extends z.ZodObject | undefined, Q extends z.ZodObject | undefined, B extends z.ZodType | undefined, R extends Responses>(
  app: Hono<AppEnv>,
  declared: Route<P, Q, B, R>,
): void {
  const loose = declared as AnyRoute;
  const input = async (c: AppContext) => ({
    params: loose.params ? parseParams(c, loose) : undefined,
    query: loose.query ? validate(loose.query, c.req.query()) : undefined,
    body: loose.body ? await readBody(c, loose.body, loose.bodyOptions) : undefined,
  });
  const schemes = loose.security ?? [];
  const hook: MiddlewareHandler<AppEnv> = async (c) => {
    requireCredential(c, schemes);
    const { params, query, body } = await input(c).catch((refused: unknown) => checkCallerBeforeRefusing(c, loose, schemes, refused));
    const reply = ((status: number, json: unknown) => {
      c.set("wholeBody", true);
      return c.json(json as object, status as ContentfulStatusCode);
    }) as unknown as Reply<R>;
    return declared.handler(c, { params, query, body, reply } as Parameters<typeof declared.handler>[1]);
  };
  const chain: MiddlewareHandler<AppEnv>[] = [planGate(declared.gate), ...(declared.middleware ?? []), Object.assign(hook, { [DECLARATION]: loose })];
  app.on(declared.method.toUpperCase(), honoPath(declared.path), chain[0]!, ...chain.slice(1));
}

/** The routes mounted on `app` through `register`, in the order they were mounted. */
export const declaredRoutes = (app: Hono<AppEnv>): AnyRoute[] => app.routes.flatMap(({ handler }) => (handler as Marked)[DECLARATION] ?? []);

/**
 * The responses the hook itself gives a route, beside those it declares: 400 when it takes input,
 * 413 when it reads a body.
 */
export function hookResponses(declared: OperationDoc): Responses {
  const responses: Responses = {};
  if (declared.params || declared.query || declared.body) responses[400] = refusal("Input not valid: the message names the field");
  if (declared.body) responses[413] = refusal("Body larger than the limit (the description gives it); nothing read or stored");
  return responses;
}
