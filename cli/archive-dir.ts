// The command line's archive: SVC_EVENT_ARCHIVE_DIR is a directory. Each object is written beside
// its final name and renamed into place only once complete, so a file that exists is a whole month.
import { createWriteStream, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { ArchiveSink } from "../worker/storage/sink";

export const directorySink: ArchiveSink = {
  async open(path) {
    mkdirSync(dirname(path), { recursive: true });
    const partial = `${path}.partial`;
    const stream = createWriteStream(partial);
    const write = (text: string) => new Promise<void>((resolve, reject) => stream.write(text, (error) => (error ? reject(error) : resolve())));
    return {
      append: write,
      finish: () =>
        new Promise<void>((resolve, reject) => {
          stream.end(() => {
            try {
              renameSync(partial, path);
              resolve();
            } catch (error) {
              reject(error);
            }
          });
        }),
      abort: async () => {
        stream.destroy();
        rmSync(partial, { force: true });
      },
    };
  },
};
