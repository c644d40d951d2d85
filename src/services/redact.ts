// Replaces known secrets in text received from a service, in case a server echoes a credential back:
// response bodies end up in errors, logs and workflow history.

export const REDACTED = '[redacted]';

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s !== '' && out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}
