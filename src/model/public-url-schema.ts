// The zod form of the spec's "public http or https" rule, for the callback address of both services.
import { z } from 'zod';
import { isHttpUrl, nonPublicUrlReason, type UrlOptions } from './url-rules.js';

export function publicHttpUrlSchema(options: UrlOptions) {
  return z.string({ error: 'must be a public http(s) URL' }).superRefine((url, ctx) => {
    if (!isHttpUrl(url)) return void ctx.addIssue({ code: 'custom', message: 'must be a public http(s) URL' });
    const reason = nonPublicUrlReason(url, options);
    if (reason) ctx.addIssue({ code: 'custom', message: `must be a public http(s) URL (${reason})` });
  });
}
