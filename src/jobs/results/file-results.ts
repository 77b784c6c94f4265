import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkKey, type ResultStore, type StoredResult } from './result-store.js';

/** Results as files under one directory (the data dir's `results/`), written atomically. */
export class FileResultStore implements ResultStore {
  readonly kind = 'files' as const;
  private storeId: string | undefined;

  constructor(private readonly dir: string) {}

  /** Made on first use, so a process that never stores a PDF leaves no results directory behind. */
  get id(): string {
    this.storeId ??= storeIdOf(this.dir);
    return this.storeId;
  }

  private file(key: string): string {
    return path.join(this.dir, checkKey(key));
  }

  /**
   * Writes to a temporary name, synced (`flush`), then renames: a crash leaves the old file or the whole
   * new one. One writeFile rather than open, write, sync and close as steps of their own: fewer trips to
   * libuv's thread pool (63 system calls a put instead of 88 under strace). A put that fails removes its
   * temporary file.
   */
  async put(key: string, bytes: Buffer): Promise<void> {
    const file = this.file(key);
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    const write = () => fs.promises.writeFile(tmp, bytes, { mode: 0o600, flush: true });
    try {
      // The account's directory is made on its first PDF only, not looked for on every put.
      await write().catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
        await write();
      });
      await fs.promises.rename(tmp, file);
    } catch (err) {
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
  }

  /** Copied to a temporary name, synced, then renamed, as `put` does. */
  async putFile(key: string, source: string): Promise<void> {
    const file = this.file(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    try {
      await fs.promises.copyFile(source, tmp);
      await fs.promises.chmod(tmp, 0o600);
      const handle = await fs.promises.open(tmp, 'r+');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.promises.rename(tmp, file);
    } catch (err) {
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
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
    try {
      const { size } = await handle.stat();
      return { body: handle.createReadStream(), bytes: size };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async delete(key: string): Promise<boolean> {
    try {
      await fs.promises.unlink(this.file(key));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async close(): Promise<void> {}
}

/**
 * The directory's store id, made once and kept in the directory: two instances on separate disks get
 * different ids, so a job row says which one holds its PDF. The host name is there for the reader of a log line.
 */
function storeIdOf(dir: string): string {
  const file = path.join(dir, '.store-id');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const id = `files:${os.hostname()}:${crypto.randomBytes(6).toString('hex')}`;
  // Written whole under another name, then linked (which fails if the name exists): two processes
  // starting on one directory agree on the first id, and neither reads a half-written one.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${id}\n`, { mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
    return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return fs.readFileSync(file, 'utf8').trim();
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
