// Callback addresses carry our signature: they are taken out of every record before it enters history.

/** Removes callback addresses (they carry our signature) from records before they enter history. */
export function redactCallbackUrls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(redactCallbackUrls) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === 'callback_url' && typeof v === 'string' ? '[redacted]' : redactCallbackUrls(v),
      ]),
    ) as T;
  }
  return value;
}
