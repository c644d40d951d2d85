// The two services' base addresses compared as the clients use them (src/config/base-urls.ts): the
// WHATWG URL's origin and its path prefix, so spellings of one address are one address.
import { describe, expect, it } from 'vitest';
import { mixedBaseUrlsProblem, normalizeBaseUrl } from '../../src/config/base-urls.js';

const video = (url: string) => ({ field: 'video.baseUrl', url });
const review = (url: string) => ({ field: 'review.baseUrl', url });

describe('normalizeBaseUrl', () => {
  it.each([
    ['https://gw.example.com', 'https://gw.example.com', ''],
    ['https://GW.Example.COM:443/', 'https://gw.example.com', ''],
    ['HTTPS://gw.example.com///', 'https://gw.example.com', ''],
    ['http://gw.example.com:80', 'http://gw.example.com', ''],
    ['http://gw.example.com:8080/', 'http://gw.example.com:8080', ''],
    ['https://gw.example.com:80', 'https://gw.example.com:80', ''],
    ['https://gw.example.com./', 'https://gw.example.com', ''],
    ['https://user:pw@gw.example.com/', 'https://gw.example.com', ''],
    ['  https://gw.example.com/?x=1#frag  ', 'https://gw.example.com', ''],
    ['https://gw.example.com/Video/', 'https://gw.example.com', '/Video'],
    ['https://gw.example.com/a/./b/../video', 'https://gw.example.com', '/a/video'],
    ['https://gw.example.com/%7evideo/%2f', 'https://gw.example.com', '/~video/%2F'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example', ''],
    ['http://0x7f.1:8081', 'http://127.0.0.1:8081', ''],
    ['http://[0:0::1]:8081/', 'http://[::1]:8081', ''],
  ])('%j is %s with path %j', (url, origin, path) => {
    expect(normalizeBaseUrl(url)).toEqual({ origin, path });
  });

  it.each(['', 'gw.example.com', 'ftp://gw.example.com', 'not a url', 'https://'])(
    '%j is not an http(s) base address',
    (url) => {
      expect(normalizeBaseUrl(url)).toBeUndefined();
    },
  );
});

describe('mixedBaseUrlsProblem', () => {
  it.each([
    ['https://gw.example.com', 'https://GW.example.com:443/'],
    ['https://gw.example.com/proxy', 'https://gw.example.com:443/proxy/'],
    ['http://127.0.0.1:8081', 'http://0x7f000001:8081/'],
  ])('%s and %s are one address: refused, naming both fields and the rule', (v, r) => {
    const problem = mixedBaseUrlsProblem(video(v), review(r));
    expect(problem).toMatch(/^video\.baseUrl and review\.baseUrl must be two different base addresses/);
    expect(problem).toContain('never mixed');
    expect(problem).toContain(normalizeBaseUrl(v)!.origin);
  });

  it.each([
    ['https://video.example.com', 'https://review.example.com'],
    ['https://gw.example.com:8081', 'https://gw.example.com:8082'],
    ['http://gw.example.com', 'https://gw.example.com'],
    // One gateway, a prefix per service: two base addresses.
    ['https://gw.example.com/video', 'https://gw.example.com/review'],
    ['https://gw.example.com', 'https://gw.example.com/identity'],
    ['https://gw.example.com/Video', 'https://gw.example.com/video'],
  ])('%s and %s are two addresses', (v, r) => {
    expect(mixedBaseUrlsProblem(video(v), review(r))).toBeUndefined();
  });

  it('leaves an address that is not an http(s) URL to the check that names it', () => {
    expect(mixedBaseUrlsProblem(video('not a url'), review('not a url'))).toBeUndefined();
  });

  it('never prints credentials or a query string the addresses carry', () => {
    const problem = mixedBaseUrlsProblem(
      video('https://user:s3cret@gw.example.com/p?key=k-123'),
      review('https://gw.example.com/p/?token=t-456'),
    );
    expect(problem).toBeDefined();
    for (const secret of ['s3cret', 'k-123', 't-456', 'user']) expect(problem).not.toContain(secret);
  });
});
