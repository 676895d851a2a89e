// What the Worker is given: the SVC_* configuration variables and its platform bindings.
export interface Bindings {
  /** Local stack only: `host:port` of the WebSocket-to-TCP bridge in front of PostgreSQL. */
  SVC_DATABASE_WS_PROXY?: string;
}

export type Env = Bindings & { readonly [variable: `SVC_${string}`]: string | undefined };
