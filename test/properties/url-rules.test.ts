// Property tests of the public-address rule (src/model/public-host.ts): whatever way an IPv4 is written in
// a URL (dotted decimal, hexadecimal, octal, short forms, one number, percent-encoded, a trailing dot) or
// wrapped in IPv6 (IPv4-mapped, NAT64, 6to4), the verdict is ipaddr.js's range() of the address the WHATWG
// parser reads: public only when `unicast`. The clients' rule and the sandbox's agree on every case.
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { isHttpUrl, nonPublicUrlReason } from '../../src/model/url-rules.js';
import { publicUrlProblem } from '../../packages/sandbox/src/validation.js';

const STRICT = { allowPrivateUrls: false };
const RUNS = 2_000;

// Every IPv4 block of the IANA special-purpose registry, multicast and the limited broadcast address.
const SPECIAL_V4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
  ['255.255.255.255', 32],
];

const toU32 = (dotted: string) => dotted.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

const inSpecialBlock = fc
  .tuple(fc.constantFrom(...SPECIAL_V4), fc.integer({ min: 0, max: 0xffffffff }))
  .map(([[net, bits], r]) => toU32(net) + (bits === 32 ? 0 : r % 2 ** (32 - bits)));
/** Any IPv4, half of them drawn from a special-purpose block. */
const anyIpv4 = fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), inSpecialBlock);

/** One number as the WHATWG IPv4 parser reads it: decimal, 0x hexadecimal (either case) or 0 octal. */
const numeral = (value: number) =>
  fc.constantFrom('dec', 'hex', 'HEX', 'oct').map((radix) => {
    if (radix === 'dec') return String(value);
    if (radix === 'oct') return `0${value.toString(8)}`;
    const hex = `0x${value.toString(16)}`;
    return radix === 'HEX' ? hex.toUpperCase() : hex;
  });

/** The IPv4 `n` written with 1 to 4 parts, the last one holding the remaining bits, each in any radix. */
function ipv4Text(n: number) {
  return fc.integer({ min: 1, max: 4 }).chain((parts) => {
    const head = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255].slice(0, parts - 1);
    const last = parts === 1 ? n : n % 2 ** (8 * (5 - parts));
    return fc.tuple(...[...head, last].map(numeral)).map((p) => p.join('.'));
  });
}

/** Percent-encode any subset of the characters, and maybe add a trailing dot. */
function disguised(text: string) {
  return fc
    .tuple(fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }), fc.boolean())
    .map(([encode, dot]) => {
      const body = [...text]
        .map((c, i) => (encode[i] ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c))
        .join('');
      return dot ? `${body}.` : body;
    });
}

const isRefused = (url: string) => nonPublicUrlReason(url) !== undefined;

describe('any IPv4, in any numeric form a URL parser takes', () => {
  it("is refused exactly when ipaddr.js's range() of the parsed host is not unicast", () => {
    fc.assert(
      fc.property(
        anyIpv4.chain((n) => fc.tuple(fc.constant(n), ipv4Text(n).chain(disguised))),
        ([n, host]) => {
          const url = `http://${host}/x.jpg`;
          const parsed = new URL(url).hostname;
          expect(parsed).toBe(dotted(n));
          expect(isHttpUrl(url)).toBe(true);
          const special = ipaddr.parse(parsed).range() !== 'unicast';
          expect(isRefused(url)).toBe(special);
          expect(publicUrlProblem(url, STRICT) !== undefined).toBe(special);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('is refused in every form when it lies in a special-purpose block', () => {
    fc.assert(
      fc.property(
        inSpecialBlock.chain((n) => ipv4Text(n).chain(disguised)),
        (host) => {
          expect(isRefused(`https://${host}:8443/a.png`)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

const group = (n: number) => n.toString(16);

describe('an IPv6 that embeds an IPv4 is judged by that IPv4', () => {
  it('IPv4-mapped (dotted or hexadecimal), NAT64 (64:ff9b::/96) and 6to4 (2002::/16)', () => {
    fc.assert(
      fc.property(
        anyIpv4,
        fc.constantFrom('mapped-dotted', 'mapped-hex', 'nat64', '6to4'),
        fc.integer({ min: 0, max: 0xffff }),
        (n, form, tail) => {
          const [hi, lo] = [group(n >>> 16), group(n & 0xffff)];
          const host = {
            'mapped-dotted': `::ffff:${dotted(n)}`,
            'mapped-hex': `::ffff:${hi}:${lo}`,
            nat64: `64:ff9b::${dotted(n)}`,
            '6to4': `2002:${hi}:${lo}::${group(tail)}`,
          }[form];
          const v4Special = ipaddr.parse(dotted(n)).range() !== 'unicast';
          const url = `http://[${host}]/x.jpg`;
          expect(isRefused(url)).toBe(v4Special);
          expect(publicUrlProblem(url, STRICT) !== undefined).toBe(v4Special);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

const EMBEDDING = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);
const PREFIXES = [
  0, 0x64, 0x100, 0x2001, 0x2002, 0x2400, 0x2620, 0x3fff, 0x5f00, 0xfc00, 0xfd00, 0xfe80, 0xfec0, 0xff02,
];
const anyIpv6 = fc.tuple(
  fc.oneof(fc.constantFrom(...PREFIXES), fc.integer({ min: 0, max: 0xffff })),
  fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 7, maxLength: 7 }),
);

describe('any IPv6 literal', () => {
  it('is refused in every special range that embeds no IPv4, and outside 2000::/3; accepted when unicast in it', () => {
    fc.assert(
      fc.property(anyIpv6, ([first, rest]) => {
        const address = new ipaddr.IPv6([first, ...rest]);
        const url = `https://[${address.toString()}]/a.jpg`;
        const host = new URL(url).hostname.slice(1, -1);
        const range = ipaddr.parse(host).range();
        if (EMBEDDING.has(range)) return; // the property above
        // IPv4-compatible ::a.b.c.d (ipaddr.js: unicast) is judged by its IPv4: the unit table.
        if (range === 'unicast' && first === 0 && rest.slice(0, 5).every((g) => g === 0)) return;
        const globalUnicast = first >> 13 === 1; // 2000::/3
        expect(isRefused(url)).toBe(range !== 'unicast' || !globalUnicast);
        expect(publicUrlProblem(url, STRICT) !== undefined).toBe(isRefused(url));
      }),
      { numRuns: RUNS },
    );
  });
});
