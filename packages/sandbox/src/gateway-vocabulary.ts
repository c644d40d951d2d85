// The gateway's kinds of task, and how each entry point names its states and ids (the sandbox's stand-ins
// for the vendors' shapes). The task store (gateway-tasks.ts) builds on this list; it names nothing of it.
import { randomHex } from './context.js';

/** The gateway entry points' task families: each names its states and ids its own way. */
export type GatewayTaskKind = 'unifiedVideo' | 'vendorA' | 'vendorB' | 'videos' | 'aigcImages';

export interface Vocabulary {
  queued: string;
  running: string;
  succeeded: string;
  failed: string;
  cancelled?: string;
  expired?: string;
}

export const UNKNOWN_STATE = 'moderating';

export const VOCABULARY: Record<GatewayTaskKind, Vocabulary> = {
  unifiedVideo: {
    queued: 'queued',
    running: 'in_progress',
    succeeded: 'succeeded',
    failed: 'failed',
    cancelled: 'cancelled',
    expired: 'expired',
  },
  vendorA: { queued: 'submitted', running: 'processing', succeeded: 'succeed', failed: 'failed' },
  vendorB: { queued: 'created', running: 'processing', succeeded: 'success', failed: 'failed' },
  videos: { queued: 'queued', running: 'in_progress', succeeded: 'completed', failed: 'failed' },
  // Upper case, wrapped in `data`: the form some gateways give task APIs; clients have to read it leniently.
  aigcImages: { queued: 'SUBMITTED', running: 'IN_PROGRESS', succeeded: 'SUCCESS', failed: 'FAILURE' },
};

export function newId(kind: GatewayTaskKind): string {
  switch (kind) {
    case 'vendorA':
    case 'vendorB':
      // Numeric ids, as these vendors hand out (kept as strings: they exceed 2^53).
      return `8${BigInt(`0x${randomHex(7)}`)
        .toString()
        .padStart(17, '0')}`;
    case 'videos':
      return `video_${randomHex(12)}`;
    case 'aigcImages':
      return `img-${randomHex(8)}`;
    default:
      return `vg-${randomHex(8)}`;
  }
}
