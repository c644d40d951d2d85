// The body of a gateway request: a JSON object, or (where the entry point takes it) multipart/form-data read
// into an object of its fields, a repeated name (`image[]` parts) as an array of its values.
import { errorReply, type Reply } from './reply.js';
import type { ServiceRequest } from './server.js';
import { describeIssues, type Issue } from './validation.js';

export function invalid(issues: Issue[]): Reply {
  return errorReply(400, 'invalid_request', describeIssues(issues), { issues });
}

/** A JSON object body, or (where allowed) multipart/form-data read into an object of its fields. */
export async function readGatewayBody(
  req: ServiceRequest,
  multipart: boolean,
): Promise<{ value: Record<string, unknown> } | { reply: Reply }> {
  const type = req.headers['content-type'] ?? '';
  if (multipart && /^multipart\/form-data\b/i.test(type)) {
    try {
      const form = await new Response(req.rawBody, { headers: { 'content-type': type } }).formData();
      // A repeated name (`image[]` parts) becomes an array of its values.
      const value: Record<string, unknown> = {};
      for (const name of new Set(form.keys())) {
        const all = form.getAll(name).map((v) => (typeof v === 'string' ? v : { filename: v.name, type: v.type }));
        value[name] = all.length === 1 ? all[0] : all;
      }
      return { value };
    } catch {
      return { reply: invalid([{ field: 'body', rule: 'is not valid multipart/form-data' }]) };
    }
  }
  if (!/^application\/json\b/i.test(type)) {
    return {
      reply: invalid([
        {
          field: 'Content-Type',
          rule: multipart ? 'must be application/json or multipart/form-data' : 'must be application/json',
        },
      ]),
    };
  }
  if (!req.bodyIsJson) return { reply: invalid([{ field: 'body', rule: 'is not valid JSON' }]) };
  const b = req.body;
  if (typeof b !== 'object' || b === null || Array.isArray(b))
    return { reply: invalid([{ field: 'body', rule: 'must be a JSON object' }]) };
  return { value: b as Record<string, unknown> };
}
