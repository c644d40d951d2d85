// Whether a host is public (spec: media URLs and callback addresses are public), decided on what the host
// means, not on how it is written. One classifier for the clients' request validators, the workflow's
// input check, CALLBACK_PUBLIC_URL and the sandbox. Pure: it runs inside Temporal's workflow sandbox
// (the global `URL` is there: the SDK injects Node's own, so workflow code parses as the services do).
// - The host is the one the WHATWG URL parser reads: `127.0.0.1\@media.example.com`, `%31%32%37.0.0.1`,
//   `0x7f.1`, `2130706433` or `127。0。0。1` all come out as 127.0.0.1, and `bücher.example` as punycode.
// - An IP host is public only when ipaddr.js (the IANA IPv4 and IPv6 special-purpose registries,
//   multicast and broadcast) calls it `unicast`, and an IPv6 also only inside 2000::/3 (global unicast).
//   An IPv6 that embeds an IPv4 (IPv4-mapped or -compatible, IPv4-translated, NAT64 64:ff9b::/96, 6to4,
//   Teredo) is judged by the IPv4 it carries: a route to it may reach that address.
// - A name is public unless it is private by definition: localhost (RFC 6761), .local (mDNS, RFC 6762),
//   .internal (ICANN, for private use: e.g. metadata.google.internal) and .home.arpa (RFC 8375). Names are
//   not resolved: any name's DNS can point inward, which only the services' egress can stop. Single-label
//   names (compose's `callbacks`) are accepted for the same reason: they are names like any other, and
//   the compose sandbox profile calls back to `http://callbacks:8787` without ALLOW_PRIVATE_URLS.
import ipaddr from 'ipaddr.js';

type Block = readonly [cidr: string, what: string];

// The blocks ipaddr.js's range() knows, in words; only used to name the rule (the longest match wins).
const IPV4_BLOCKS: Block[] = [
  ['0.0.0.0/8', 'a "this network" address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol assignment'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.31.196.0/24', 'an AS112 DNS address'],
  ['192.52.193.0/24', 'an AMT relay address'],
  ['192.88.99.0/24', 'a 6to4 relay anycast address'],
  ['192.168.0.0/16', 'a private address'],
  ['192.175.48.0/24', 'an AS112 DNS address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'],
  ['255.255.255.255/32', 'the limited broadcast address'],
];
const IPV6_BLOCKS: Block[] = [
  ['::/128', 'the unspecified address'],
  ['::1/128', 'the loopback address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['100::/64', 'a discard-only address'],
  ['2001::/23', 'an IETF protocol assignment'],
  ['2001:2::/48', 'a benchmarking address'],
  ['2001:3::/32', 'an AMT relay address'],
  ['2001:4:112::/48', 'an AS112 DNS address'],
  ['2001:10::/28', 'a deprecated ORCHID identifier'],
  ['2001:20::/28', 'an ORCHIDv2 identifier'],
  ['2001:30::/28', 'a drone remote ID tag'],
  ['2001:db8::/32', 'a documentation address'],
  ['2620:4f:8000::/48', 'an AS112 DNS address'],
  ['3fff::/20', 'a documentation address'],
  ['5f00::/16', 'a segment routing identifier'],
  ['fc00::/7', 'a unique-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a deprecated site-local address'],
  ['ff00::/8', 'a multicast address'],
];

const PRIVATE_NAMES: Array<[suffix: string, what: string]> = [
  ['localhost', 'a localhost name (RFC 6761)'],
  ['local', 'an mDNS link-local name (.local, RFC 6762)'],
  ['internal', 'a private-use name (.internal)'],
  ['home.arpa', 'a home network name (.home.arpa, RFC 8375)'],
];

type Parsed = { net: ipaddr.IPv4 | ipaddr.IPv6; bits: number; cidr: string; what: string };
const parsed = (blocks: Block[]): Parsed[] =>
  blocks.map(([cidr, what]) => {
    const [net, bits] = ipaddr.parseCIDR(cidr);
    return { net, bits, cidr, what };
  });
const V4_PARSED = parsed(IPV4_BLOCKS);
const V6_PARSED = parsed(IPV6_BLOCKS);

/** `what (cidr)` of the longest listed block holding the address, or ipaddr.js's name of its range. */
function describe(address: ipaddr.IPv4 | ipaddr.IPv6, blocks: Parsed[], range: string): string {
  let best: Parsed | undefined;
  for (const b of blocks) if (address.match(b.net, b.bits) && b.bits > (best?.bits ?? -1)) best = b;
  return best ? `${best.what} (${best.cidr})` : `a special-purpose address (${range})`;
}

/** What the IPv4 is when it is not public, e.g. `a private address (10.0.0.0/8)`; undefined when public. */
function ipv4Problem(v4: ipaddr.IPv4): string | undefined {
  const range = v4.range();
  return range === 'unicast' ? undefined : describe(v4, V4_PARSED, range);
}

const v4At = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);

/** The IPv4 addresses an IPv6 form carries, with the form's name and block; undefined for other IPv6. */
function embeddedIpv4(v6: ipaddr.IPv6): { form: string; carried: ipaddr.IPv4[] } | undefined {
  const p = v6.parts as [number, number, number, number, number, number, number, number];
  const zeroHead = p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0;
  const low = v4At(p[6], p[7]);
  switch (v6.range()) {
    case 'ipv4Mapped':
      return { form: 'an IPv4-mapped address (::ffff:0:0/96)', carried: [low] };
    case 'rfc6145':
      return { form: 'an IPv4-translated address (::ffff:0:0:0/96)', carried: [low] };
    case 'rfc6052':
      return p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0
        ? { form: 'a NAT64 address (64:ff9b::/96)', carried: [low] }
        : undefined; // 64:ff9b:1::/48 is local-use: refused by its block
    case '6to4':
      return { form: 'a 6to4 address (2002::/16)', carried: [v4At(p[1], p[2])] };
    case 'teredo': // server, then the client stored inverted (RFC 4380)
      return {
        form: 'a Teredo address (2001::/32)',
        carried: [v4At(p[2], p[3]), v4At(~p[6] & 0xffff, ~p[7] & 0xffff)],
      };
    case 'unicast': // ::a.b.c.d (RFC 4291, deprecated); :: and ::1 have ranges of their own
      return zeroHead && p[4] === 0 && p[5] === 0
        ? { form: 'an IPv4-compatible address (::/96)', carried: [low] }
        : undefined;
    default:
      return undefined;
  }
}

function ipv6Problem(v6: ipaddr.IPv6, shown: string): string | undefined {
  const embedded = embeddedIpv4(v6);
  if (embedded) {
    for (const v4 of embedded.carried) {
      const problem = ipv4Problem(v4);
      if (problem) return `${shown} is ${embedded.form} of ${v4.toString()}, ${problem}, not a public one`;
    }
    return undefined;
  }
  const range = v6.range();
  if (range !== 'unicast') return `${shown} is ${describe(v6, V6_PARSED, range)}, not a public one`;
  if (v6.parts[0]! >> 13 !== 1) return `${shown} is not in the global unicast space (2000::/3)`;
  return undefined;
}

/** The hostname the WHATWG URL parser makes of a host as written (a bare IPv6 gets its brackets). */
function parsedHostname(host: string): string | undefined {
  if (/[\s/\\@#?]/.test(host)) return undefined;
  const literal = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  try {
    const url = new URL(`http://${literal}/`);
    return url.port === '' ? url.hostname : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why a host is not public, or undefined when it is. `host` is a URL's hostname (`new URL(u).hostname`,
 * what `hostOf` returns) or a host as written, which is read the way the URL parser reads it first.
 */
export function nonPublicHostReason(host: string): string | undefined {
  if (host === '') return 'the URL has no host';
  const hostname = parsedHostname(host);
  if (hostname === undefined) return `${host} is not a valid host`;
  if (hostname.startsWith('[')) {
    const bare = hostname.slice(1, -1);
    return ipv6Problem(ipaddr.IPv6.parse(bare), bare);
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(hostname)) {
    const problem = ipv4Problem(ipaddr.IPv4.parse(hostname));
    return problem ? `${hostname} is ${problem}, not a public one` : undefined;
  }
  const name = hostname.replace(/\.$/, '');
  for (const [suffix, what] of PRIVATE_NAMES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return `${name} is ${what}, not a public host`;
  }
  return undefined;
}
