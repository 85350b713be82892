// Local storage (the default): files under DATA_DIR, served by this same server at the URL path
// of their key. Writes go to a temporary name first and are renamed into place, so a reader never
// sees half a file and a failed request leaves nothing behind.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { StorageError } from './storage-error.js';
import type { Storage } from './storage.js';

export class LocalStorage implements Storage {
  constructor(
    /** Directory that keys are relative to. */
    readonly root: string,
    /** Origin (and optional path prefix) of this server, without a trailing slash. */
    private readonly publicBaseUrl: string,
    /**
     * Free space under which the store is not healthy (/ready says so): what one request may store.
     * A full disk still takes the empty file of the write probe, while every image fails.
     */
    private readonly minFreeBytes = 0,
  ) {}

  async put(key: string, body: Buffer): Promise<void> {
    const file = this.fileOf(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.writeFile(temporary, body, { flag: 'wx' });
      await fs.rename(temporary, file);
    } catch (error) {
      await fs.rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await fs.readFile(this.fileOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await fs.stat(this.fileOf(key)).catch(() => undefined))?.isFile() ?? false;
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.fileOf(key), { force: true });
  }

  url(key: string): string {
    return `${this.publicBaseUrl}/${key}`;
  }

  async health(): Promise<void> {
    await fs.mkdir(this.root, { recursive: true });
    const probe = path.join(this.root, `.health-${randomBytes(6).toString('hex')}`);
    await fs.writeFile(probe, '');
    await fs.rm(probe, { force: true });
    const { bavail, bsize } = await fs.statfs(this.root);
    const free = bavail * bsize;
    if (free < this.minFreeBytes) {
      const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1 })} MB`;
      throw new StorageError(`only ${mb(free)} free in ${this.root}; a request may store up to ${mb(this.minFreeBytes)} (MAX_REQUEST_MB)`);
    }
  }

  /** The file of a key; a key that would resolve outside the root is refused. */
  private fileOf(key: string): string {
    const file = path.resolve(this.root, key);
    if (!file.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`storage key "${key}" leaves the storage directory`);
    return file;
  }
}
