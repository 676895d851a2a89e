// Recognising PostgreSQL errors by SQLSTATE, whether the driver's error arrives bare or wrapped by
// drizzle (which keeps the driver's error as `cause`).
const sqlState = (error: unknown): string | undefined => {
  const own = (error as { code?: unknown } | null)?.code;
  if (typeof own === "string") return own;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause === undefined ? undefined : sqlState(cause);
};

export const isUniqueViolation = (error: unknown) => sqlState(error) === "23505";
