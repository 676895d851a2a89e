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
