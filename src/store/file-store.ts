// VIDEO_STORE=file:///dir: each video written to `<key>.part-<random>`, flushed to disk, then renamed to
// `<key>` (rename is atomic on one file system), after its manifest `<key>.manifest.json`.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import type { Readable } from 'node:stream';
import type { StoredVideo } from '../model/stored-video.js';
import type { StoreManifest, VideoStore } from './types.js';

const PART = '.part-';

export class FileVideoStore implements VideoStore {
  readonly location: string;

  constructor(private readonly dir: string) {
    this.location = pathToFileURL(dir).href;
  }

  #path(key: string): string {
    return join(this.dir, ...key.split('/'));
  }

  #stored(key: string, m: StoreManifest): StoredVideo {
    return { url: pathToFileURL(this.#path(key)).href, bytes: m.bytes, sha256: m.sha256, contentType: m.contentType };
  }

  async find(key: string): Promise<StoredVideo | undefined> {
    const path = this.#path(key);
    const [size, manifest] = await Promise.all([
      stat(path).then(
        (s) => s.size,
        () => undefined,
      ),
      readFile(`${path}.manifest.json`, 'utf8').then(
        (t) => JSON.parse(t) as StoreManifest,
        () => undefined,
      ),
    ]);
    if (size === undefined || !manifest || size !== manifest.bytes) return undefined;
    // A local read is cheap next to a download: the hash is checked, not trusted.
    const hash = createHash('sha256');
    await pipeline(createReadStream(path), hash);
    return hash.digest('hex') === manifest.sha256 ? this.#stored(key, manifest) : undefined;
  }

  async discardPartial(key: string): Promise<void> {
    const path = this.#path(key);
    const names = await readdir(dirname(path)).catch(() => [] as string[]);
    const prefix = `${basename(path)}${PART}`;
    await Promise.all(
      names.filter((n) => n.startsWith(prefix)).map((n) => rm(join(dirname(path), n), { force: true })),
    );
  }

  async put(key: string, body: Readable, contentType: string, manifest: () => StoreManifest): Promise<StoredVideo> {
    const path = this.#path(key);
    await mkdir(dirname(path), { recursive: true });
    const part = `${path}${PART}${randomBytes(6).toString('hex')}`;
    try {
      await pipeline(body, createWriteStream(part));
      const handle = await open(part, 'r+');
      await handle.datasync().finally(() => handle.close());
      const m = { ...manifest(), contentType };
      const manifestPart = `${path}${PART}manifest-${randomBytes(6).toString('hex')}`;
      await writeFile(manifestPart, JSON.stringify(m));
      await rename(manifestPart, `${path}.manifest.json`);
      await rename(part, path);
      return this.#stored(key, m);
    } catch (err) {
      await rm(part, { force: true });
      throw err;
    }
  }

  async close(): Promise<void> {}
}
