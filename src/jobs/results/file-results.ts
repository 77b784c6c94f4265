import fs from 'node:fs';
import path from 'node:path';
import { checkKey, type ResultStore, type StoredResult } from './result-store.js';

/** Results as files under one directory (the data dir's `results/`), written atomically. */
export class FileResultStore implements ResultStore {
  readonly kind = 'files' as const;

  constructor(private readonly dir: string) {}

  private file(key: string): string {
    return path.join(this.dir, checkKey(key));
  }

  /** Writes to a temporary name, syncs, then renames: a crash leaves the old file or the whole new one. */
  async put(key: string, bytes: Buffer): Promise<void> {
    const file = this.file(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    const handle = await fs.promises.open(tmp, 'w', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(tmp, file);
  }

  async get(key: string): Promise<StoredResult | undefined> {
    const file = this.file(key);
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    // The open handle keeps the bytes readable even if the sweep deletes the file meanwhile.
    const { size } = await handle.stat();
    return { body: handle.createReadStream(), bytes: size };
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.file(key), { force: true });
  }

  async close(): Promise<void> {}
}
