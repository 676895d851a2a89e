// Objects in an R2 bucket, written as multipart uploads so text of any size streams through without
// being held in memory.
import type { ArchiveSink } from "./sink";

// R2 multipart parts must be at least 5 MiB, except the last.
const PART_BYTES = 8 * 1024 * 1024;

export function r2Sink(bucket: R2Bucket): ArchiveSink {
  return {
    async open(key, contentType = "application/x-ndjson") {
      const upload = await bucket.createMultipartUpload(key, { httpMetadata: { contentType } });
      const parts: R2UploadedPart[] = [];
      let buffered: string[] = [];
      let size = 0;
      const flush = async () => {
        if (buffered.length === 0) return;
        parts.push(await upload.uploadPart(parts.length + 1, buffered.join("")));
        buffered = [];
        size = 0;
      };
      return {
        async append(text) {
          buffered.push(text);
          size += text.length;
          if (size >= PART_BYTES) await flush();
        },
        async finish() {
          await flush();
          if (parts.length === 0) parts.push(await upload.uploadPart(1, ""));
          await upload.complete(parts);
        },
        abort: () => upload.abort(),
      };
    },
  };
}
