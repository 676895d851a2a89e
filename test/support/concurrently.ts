// Independent requests of one test sent a few at a time: each request opens database connections of
// its own, and the suite's PostgreSQL (max_connections 200, local/postgres.ts) is shared by two files.

/** `work` for every item, at most `limit` at once; the results in the items' order. */
export async function mapConcurrently<T, R>(items: readonly T[], work: (item: T) => Promise<R>, limit = 8): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
