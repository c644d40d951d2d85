// The stored copy of a finished video (issue 18): what the result's `stored` field holds. Pure.
import { z } from 'zod';
import { lazy } from './lazy.js';

/** Where the video was copied to, and what was copied: checked against the bytes written. */
export const storedVideoSchema = lazy(() =>
  z.object({
    url: z
      .string()
      .describe('`file:///dir/<workflowId>/<taskId>.mp4` or `s3://bucket/prefix/<workflowId>/<taskId>.mp4`.'),
    bytes: z.number().int(),
    sha256: z.string().describe('Hex SHA-256 of the bytes stored.'),
    contentType: z.string(),
  }),
);

/** Where the video was copied to, and what was copied: checked against the bytes written. */
export type StoredVideo = z.infer<ReturnType<typeof storedVideoSchema>>;

/** One path segment from an id: no slash, no `.` or `..`, so an id cannot escape its folder. */
function segment(id: string): string {
  const encoded = encodeURIComponent(id);
  return encoded === '.' || encoded === '..' ? encoded.replace(/\./g, '%2E') : encoded;
}

/** The store key of a run's video (relative to the store's folder or prefix): one per workflow id and task. */
export function videoKey(workflowId: string, taskId: string): string {
  return `${segment(workflowId)}/${segment(taskId)}.mp4`;
}
