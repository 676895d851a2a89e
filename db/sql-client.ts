// The one query surface shared by node-postgres (operator commands, local stack) and the neon
// driver (the Worker): both are pg-compatible.
export interface SqlClient {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
}
