// Where long text goes as it is produced (condemned event months, data export documents): one
// object per key, written in pieces. The Worker writes to an R2 bucket; the command line to a directory.
export interface ArchiveWriter {
  append(text: string): Promise<void>;
  /** Resolves only once the whole object is durably stored. */
  finish(): Promise<void>;
  abort(): Promise<void>;
}

export interface ArchiveSink {
  open(key: string, contentType?: string): Promise<ArchiveWriter>;
}
