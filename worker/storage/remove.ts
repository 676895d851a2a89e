// Removing every object under a key prefix (an organization's folder), a listing page at a time.
const PAGE = 1_000;

/** Deletes every object whose key starts with `prefix`; answers how many there were. */
export async function removeUnder(bucket: R2Bucket, prefix: string): Promise<number> {
  let removed = 0;
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix, limit: PAGE, cursor });
    if (listed.objects.length > 0) await bucket.delete(listed.objects.map((object) => object.key));
    removed += listed.objects.length;
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
  return removed;
}
