// Assets issued by the review service, shared with the video service: which `Asset://` addresses exist
// and were approved, and the signed `downstream_final_url`s that expire (spec: not a stable identifier).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface IssuedAsset {
  assetId: string;
  assetUrl: string;
  downstreamAssetId: string;
  downstreamFinalUrl: string;
  expiresAt: number;
  approved: boolean;
  taskId: string;
  sourceUrl: string;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export class AssetRegistry {
  private readonly secret = randomBytes(32);
  private byAsset = new Map<string, IssuedAsset>();
  private byDownstream = new Map<string, IssuedAsset>();

  /** `signedBase` is the review service's own base URL, so the signed address can really be fetched. */
  issue(input: {
    sourceUrl: string;
    taskId: string;
    approved: boolean;
    signedBase: string;
    ttlMs: number;
    now: number;
  }): IssuedAsset {
    const assetId = `asset-${hex(8)}`;
    const downstreamAssetId = `ds-${hex(8)}`;
    const expiresAt = input.now + input.ttlMs;
    const fileName = encodeURIComponent(lastSegment(input.sourceUrl));
    const sig = this.sign(downstreamAssetId, expiresAt);
    const asset: IssuedAsset = {
      assetId,
      assetUrl: `Asset://${assetId}`,
      downstreamAssetId,
      downstreamFinalUrl: `${input.signedBase}/signed/${downstreamAssetId}/${fileName}?sig=${sig}&expires=${expiresAt}`,
      expiresAt,
      approved: input.approved,
      taskId: input.taskId,
      sourceUrl: input.sourceUrl,
    };
    this.byAsset.set(asset.assetUrl, asset);
    this.byDownstream.set(downstreamAssetId, asset);
    return asset;
  }

  byAssetUrl(url: string): IssuedAsset | undefined {
    return this.byAsset.get(url);
  }

  /** True for a signed address this sandbox issued (expired or not, whatever its query string says). */
  isDownstreamUrl(url: string): boolean {
    const id = downstreamIdOf(url);
    return id !== undefined && this.byDownstream.has(id);
  }

  /** GET of a signed address: 200 with a tiny body before `expires`, 403 after it or with a bad signature. */
  fetchSigned(url: URL, now: number): { status: number; body: string } {
    const id = downstreamIdOf(url.href);
    const asset = id === undefined ? undefined : this.byDownstream.get(id);
    if (!asset) return { status: 404, body: 'no such signed asset' };
    const expires = Number(url.searchParams.get('expires'));
    const sig = url.searchParams.get('sig') ?? '';
    if (!Number.isFinite(expires) || !this.verify(asset.downstreamAssetId, expires, sig))
      return { status: 403, body: 'bad signature' };
    if (now >= expires) return { status: 403, body: 'signed URL expired' };
    return { status: 200, body: `sandbox asset ${asset.downstreamAssetId}` };
  }

  clear(): void {
    this.byAsset.clear();
    this.byDownstream.clear();
  }

  private sign(downstreamAssetId: string, expiresAt: number): string {
    return createHmac('sha256', this.secret).update(`${downstreamAssetId}\n${expiresAt}`).digest('base64url');
  }

  private verify(downstreamAssetId: string, expiresAt: number, sig: string): boolean {
    const a = Buffer.from(this.sign(downstreamAssetId, expiresAt));
    const b = Buffer.from(sig);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

function downstreamIdOf(url: string): string | undefined {
  try {
    const m = /^\/signed\/([^/]+)\//.exec(new URL(url).pathname);
    return m?.[1];
  } catch {
    return undefined;
  }
}

function lastSegment(url: string): string {
  try {
    const parts = new URL(url).pathname.split('/');
    return decodeURIComponent(parts[parts.length - 1] || 'asset');
  } catch {
    return 'asset';
  }
}
