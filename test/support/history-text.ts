// A run's history as text to search for secrets: the tests' check and the soak's scan read it alike.

/** A history as JSON text with every base64 payload decoded next to it (payloads are base64 in JSON). */
export function historyText(history: unknown): string {
  const text = JSON.stringify(history);
  const decoded = text.replace(
    /"data":"([A-Za-z0-9+/=]+)"/g,
    (_m, b64: string) => `"data":${JSON.stringify(Buffer.from(b64, 'base64').toString('utf8'))}`,
  );
  return `${text}\n${decoded}`;
}
