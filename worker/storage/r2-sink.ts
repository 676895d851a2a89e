// Objects in an R2 bucket, written as multipart uploads so text of any size streams through without
// being held in memory: at most one part and the chunk being appended.
import type { ArchiveSink } from "./sink";

// R2 takes a multipart upload only if every part but the last has the same size, at least 5 MiB, and
// the last is no larger: text is cut into parts of exactly this many bytes, whatever the chunks.
export const PART_BYTES = 8 * 1024 * 1024;

export function r2Sink(bucket: R2Bucket): ArchiveSink {
  const encoder = new TextEncoder();
  return {
    async open(key, contentType = "application/x-ndjson") {
      const upload = await bucket.createMultipartUpload(key, { httpMetadata: { contentType } });
      const parts: R2UploadedPart[] = [];
      let part = new Uint8Array(PART_BYTES);
      let filled = 0;
      const send = async (bytes: Uint8Array) => {
        parts.push(await upload.uploadPart(parts.length + 1, bytes));
      };
      return {
        async append(text) {
          const bytes = encoder.encode(text);
          for (let from = 0; from < bytes.length; ) {
            const taken = Math.min(PART_BYTES - filled, bytes.length - from);
            part.set(bytes.subarray(from, from + taken), filled);
            filled += taken;
            from += taken;
            if (filled === PART_BYTES) {
              await send(part);
              // A fresh buffer: the one just sent is not reused while the runtime may still hold it.
              part = new Uint8Array(PART_BYTES);
              filled = 0;
            }
          }
        },
        async finish() {
          // The short last part; an empty object is one empty part.
          if (filled > 0 || parts.length === 0) await send(part.subarray(0, filled));
          await upload.complete(parts);
        },
        abort: () => upload.abort(),
      };
    },
  };
}

// A stored JSON document answered as a download, streamed from the bucket as it is read.
export const jsonDownload = (object: R2ObjectBody, filename: string) =>
  new Response(object.body, {
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-length": String(object.size),
      "content-disposition": `attachment; filename="${filename}"`,
    },
  });

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
