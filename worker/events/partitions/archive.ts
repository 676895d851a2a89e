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
