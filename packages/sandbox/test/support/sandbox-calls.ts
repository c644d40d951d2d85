// The sandbox calls the quota tests make over HTTP: a video create, a cancel, a review submit, each with
// the right service's headers (packages/sandbox/test/quotas.test.ts, quota-rate.test.ts).
import type { Sandbox } from '../../src/index.js';
import { reviewHeaders, videoHeaders, type Http } from './sandbox-http.js';

export function sandboxCalls(http: Http) {
  return {
    create: (s: Sandbox, model = 'model-a', prompt = 'a walk on the beach') =>
      http.call('POST', `${s.videoBaseUrl}/v1/task/create`, {
        headers: videoHeaders(s),
        json: { model, content: [{ type: 'text', text: prompt }] },
      }),
    cancel: (s: Sandbox, id: string) =>
      http.call('POST', `${s.videoBaseUrl}/v1/task/cancel/${id}`, { headers: videoHeaders(s) }),
    submit: (s: Sandbox, mode: 'async' | 'sync' = 'async', url = 'https://cdn.example.com/a.jpg') =>
      http.call('POST', `${s.reviewBaseUrl}/api/asset/upload/${mode}`, {
        headers: reviewHeaders(s),
        json: { images: [url] },
      }),
  };
}
