// Media type from the URL extension (spec: media rules for submit) and the batching of URLs for review.
// Pure: workflow code plans its review batches with this.
import { RequestValidationError } from '../validation.js';

export type AssetType = 'Image' | 'Video' | 'Audio';
export const ASSET_TYPES = ['Image', 'Video', 'Audio'] as const;

export const EXTENSIONS: Record<AssetType, readonly string[]> = {
  Image: ['.jpeg', '.jpg', '.png', '.webp', '.bmp', '.tiff', '.tif', '.gif', '.heic', '.heif'],
  Video: ['.mp4', '.mov'],
  Audio: ['.wav', '.mp3'],
};

/** For rule texts: "Image: .jpeg .jpg ...; Video: .mp4 .mov; Audio: .wav .mp3". */
export const EXTENSION_TABLE = ASSET_TYPES.map((t) => `${t}: ${EXTENSIONS[t].join(' ')}`).join('; ');

export const MAX_URLS_PER_BATCH = 50;

/** Type of a media URL from its path's extension (case-insensitive, query and fragment ignored). */
export function assetTypeOf(url: string): AssetType | undefined {
  // Only the path counts: not the host (`cdn.example.jpg`), the query or the fragment.
  const path = url
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '')
    .replace(/[?#].*$/s, '')
    .toLowerCase();
  const dot = path.lastIndexOf('.');
  if (dot < 0 || path.indexOf('/', dot) >= 0) return undefined;
  const ext = path.slice(dot);
  return ASSET_TYPES.find((t) => EXTENSIONS[t].includes(ext));
}

/**
 * Groups URLs by type (first-seen order), drops duplicates and splits each group into batches of at most
 * 50, so that every batch obeys the one-type and size rules. Throws RequestValidationError naming each
 * URL whose type cannot be told from its extension.
 */
export function planReviewBatches(urls: string[]): Array<{ assetType: AssetType; urls: string[] }> {
  const groups = new Map<AssetType, string[]>();
  const seen = new Set<string>();
  const issues = urls.flatMap((url, i) => {
    const type = assetTypeOf(url);
    if (!type) return [{ field: `urls[${i}]`, rule: `must end with a supported extension (${EXTENSION_TABLE})` }];
    if (!seen.has(url)) {
      seen.add(url);
      const group = groups.get(type) ?? [];
      group.push(url);
      groups.set(type, group);
    }
    return [];
  });
  if (issues.length > 0) throw new RequestValidationError('review batch planning', issues);
  const batches: Array<{ assetType: AssetType; urls: string[] }> = [];
  for (const [assetType, group] of groups) {
    for (let i = 0; i < group.length; i += MAX_URLS_PER_BATCH) {
      batches.push({ assetType, urls: group.slice(i, i + MAX_URLS_PER_BATCH) });
    }
  }
  return batches;
}
