// How the sandbox reads a request line's target. The sandbox and the callback receiver each keep
// their own copy: the sandbox shares no code with the package but the public-host rule.

/**
 * The request target as a URL: origin-form ("/path?query") or absolute-form ("http://host/path"), else
 * undefined ("*", garbage). Resolving a path against a base instead, as `new URL(target, base)` does, reads
 * "//x/..." as a host, and throws on "//a^b": paths are never hosts here.
 */
export function requestTarget(target: string | undefined): URL | undefined {
  const absolute = target !== undefined && /^https?:\/\//i.test(target);
  if (!absolute && !target?.startsWith('/')) return undefined;
  try {
    return new URL(absolute ? target : `http://request-target.invalid${target}`);
  } catch {
    return undefined;
  }
}
