// VIDEO_STORE (design: configuration): `file:///dir` or `s3://bucket/prefix`; unset or empty = off.
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../config/env.js';
import { type VideoStoreConfig } from '../config/types.js';

type Env = Record<string, string | undefined>;

/** Reads VIDEO_STORE; throws ConfigError naming the variable and the rule, never the value. */
export function loadVideoStoreConfig(env: Env = process.env): VideoStoreConfig | undefined {
  const raw = env.VIDEO_STORE?.trim();
  if (!raw) return undefined;
  return parseVideoStore(raw);
}

export function parseVideoStore(raw: string): VideoStoreConfig {
  const bad = (rule: string) => new ConfigError(`invalid configuration: VIDEO_STORE ${rule}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('must be a URL: file:///absolute/dir or s3://bucket/prefix');
  }
  if (url.protocol === 'file:') {
    if (url.search || url.hash || (url.host && url.host !== 'localhost'))
      throw bad('must be file:///absolute/dir (no host, query or fragment)');
    return { kind: 'file', dir: fileURLToPath(url) };
  }
  if (url.protocol === 's3:') {
    if (!url.hostname || url.search || url.hash || url.username || url.port)
      throw bad('must be s3://bucket or s3://bucket/prefix (no credentials, port, query or fragment)');
    return { kind: 's3', bucket: url.hostname, prefix: decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '') };
  }
  throw bad('must start with file:// or s3://');
}

/** The store's address as shown to users (no secret is ever part of it). */
export function describeVideoStore(c: VideoStoreConfig): string {
  return c.kind === 'file' ? `file://${c.dir}` : `s3://${c.bucket}${c.prefix ? `/${c.prefix}` : ''}`;
}
