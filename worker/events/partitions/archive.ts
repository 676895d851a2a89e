// Where condemned months go before they are dropped: newline-delimited JSON, one object per month,
// under a key prefix. The Worker writes to an R2 bucket; the command line to a directory.
export interface ArchiveWriter {
  append(text: string): Promise<void>;
  /** Resolves only once the whole object is durably stored. */
  finish(): Promise<void>;
  abort(): Promise<void>;
}

export interface ArchiveSink {
  open(key: string): Promise<ArchiveWriter>;
}

// R2 multipart parts must be at least 5 MiB, except the last.
const PART_BYTES = 8 * 1024 * 1024;

export function r2Sink(bucket: R2Bucket): ArchiveSink {
  return {
    async open(key) {
      const upload = await bucket.createMultipartUpload(key, { httpMetadata: { contentType: "application/x-ndjson" } });
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
