// "Public" is decided on what a URL means, not on its text (issue 24, item 3): the host is the one the
// WHATWG URL parser finds (what the services and the SDK read), and an IP host is public only when it is
// in no IANA special-purpose block; an IPv6 form that embeds an IPv4 is judged by that IPv4 too. One
// classifier serves the clients, the workflow's input check, CALLBACK_PUBLIC_URL and the sandbox.
import { describe, expect, it } from 'vitest';
import { hostOf, isHttpUrl, nonPublicHostReason, nonPublicUrlReason } from '../../src/model/url-rules.js';
import { isHttpUrl as sandboxIsHttpUrl, publicUrlProblem } from '../../packages/sandbox/src/validation.js';

const STRICT = { allowPrivateUrls: false };

// [the form, the URL, what the reason says]
const REFUSED: Array<[string, string, string | RegExp]> = [
  // The three addresses the issue saw accepted.
  ['a backslash before the userinfo', 'http://127.0.0.1\\@media.example.com/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['a percent-encoded host', 'http://%31%32%37.0.0.1/x.jpg', /^127\.0\.0\.1 is a loopback address \(127\.0\.0\.0\/8\)/],
  [
    'carrier-grade NAT',
    'http://100.64.0.1/x.jpg',
    '100.64.0.1 is a carrier-grade NAT address (100.64.0.0/10), not a public one',
  ],
  // Numeric IPv4 forms the parser reads as dotted decimal.
  ['one decimal number', 'http://2130706433/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['one hexadecimal number', 'http://0x7f000001/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['short hexadecimal', 'http://0x7f.1/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['upper-case hexadecimal', 'http://0X7F.0X0.0X0.0X1/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['octal', 'http://0177.0.0.1/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['octal of a private address', 'http://0300.0250.0.1/x.jpg', /^192\.168\.0\.1 is a private address \(192\.168/],
  ['one octal number', 'http://017700000001/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['short decimal', 'http://127.1/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['three parts', 'http://10.1.258/x.jpg', /^10\.1\.1\.2 is a private address \(10\.0\.0\.0\/8\)/],
  ['a trailing dot on an IPv4', 'http://127.0.0.1./x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['ideographic full stops', 'http://127\u30020\u30020\u30021/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['fullwidth digits', 'http://\uff11\uff12\uff17.0.0.1/x.jpg', /^127\.0\.0\.1 is a loopback/],
  // Special-purpose IPv4 blocks.
  ['this network 0.0.0.0/8', 'http://0.0.0.0/x.jpg', /^0\.0\.0\.0 is a "this network" address \(0\.0\.0\.0\/8\)/],
  ['this network, one number', 'http://0/x.jpg', /^0\.0\.0\.0 is a "this network"/],
  ['this network 0.1.2.3', 'http://0.1.2.3/x.jpg', /\(0\.0\.0\.0\/8\)/],
  ['private 10/8', 'http://10.0.0.1/x.jpg', /\(10\.0\.0\.0\/8\)/],
  ['private 172.16/12', 'http://172.31.255.255/x.jpg', /\(172\.16\.0\.0\/12\)/],
  [
    'link-local (cloud metadata)',
    'http://169.254.169.254/latest/meta-data',
    /link-local address \(169\.254\.0\.0\/16\)/,
  ],
  ['carrier-grade NAT, top', 'http://100.127.255.254/x.jpg', /carrier-grade NAT/],
  ['IETF protocol assignments', 'http://192.0.0.170/x.jpg', /\(192\.0\.0\.0\/24\)/],
  ['documentation TEST-NET-1', 'http://192.0.2.1/x.jpg', /documentation address \(192\.0\.2\.0\/24\)/],
  ['documentation TEST-NET-3', 'http://203.0.113.7/x.jpg', /documentation address \(203\.0\.113\.0\/24\)/],
  ['benchmarking', 'http://198.18.0.1/x.jpg', /benchmarking address \(198\.18\.0\.0\/15\)/],
  ['multicast', 'http://224.0.0.1/x.jpg', /multicast address \(224\.0\.0\.0\/4\)/],
  ['multicast SSDP', 'http://239.255.255.250/x.jpg', /multicast/],
  ['reserved 240/4', 'http://240.0.0.1/x.jpg', /reserved address \(240\.0\.0\.0\/4\)/],
  ['broadcast', 'http://255.255.255.255/x.jpg', /limited broadcast address \(255\.255\.255\.255\/32\)/],
  // IPv6 literals.
  ['IPv6 unspecified', 'http://[::]/x.jpg', /^:: is the unspecified address/],
  ['IPv6 loopback', 'http://[::1]:9000/x.jpg', /^::1 is the loopback address \(::1\/128\)/],
  ['IPv6 loopback, long form', 'http://[0:0:0:0:0:0:0:1]/x.jpg', /^::1 is the loopback/],
  ['IPv6 link-local', 'http://[fe80::1]/x.jpg', /link-local address \(fe80::\/10\)/],
  ['IPv6 unique-local', 'http://[fd00:ec2::254]/x.jpg', /unique-local address \(fc00::\/7\)/],
  ['IPv6 site-local fec0::/10', 'http://[fec0::1]/x.jpg', /site-local address \(fec0::\/10\)/],
  ['IPv6 multicast', 'http://[ff02::1]/x.jpg', /multicast address \(ff00::\/8\)/],
  ['IPv6 documentation', 'http://[2001:db8::1]/x.jpg', /documentation address \(2001:db8::\/32\)/],
  ['IPv6 discard-only', 'http://[100::1]/x.jpg', /\(100::\/64\)/],
  ['IPv6 outside global unicast', 'http://[4000::1]/x.jpg', /not in the global unicast space \(2000::\/3\)/],
  ['local-use NAT64', 'http://[64:ff9b:1::1]/x.jpg', /\(64:ff9b:1::\/48\)/],
  // IPv6 forms that embed an IPv4: judged by the IPv4.
  ['IPv4-mapped, dotted', 'http://[::ffff:127.0.0.1]/x.jpg', /IPv4-mapped .*127\.0\.0\.1, a loopback address/],
  ['IPv4-mapped, hexadecimal', 'http://[::ffff:7f00:1]/x.jpg', /IPv4-mapped .*127\.0\.0\.1/],
  ['IPv4-mapped, long form', 'http://[0:0:0:0:0:ffff:127.0.0.1]/x.jpg', /IPv4-mapped .*127\.0\.0\.1/],
  ['IPv4-mapped private', 'http://[::ffff:10.0.0.1]/x.jpg', /IPv4-mapped .*10\.0\.0\.1, a private address/],
  ['IPv4-mapped metadata', 'http://[::ffff:a9fe:a9fe]/x.jpg', /169\.254\.169\.254, a link-local/],
  ['IPv4-compatible', 'http://[::127.0.0.1]/x.jpg', /IPv4-compatible .*127\.0\.0\.1/],
  ['IPv4-translated', 'http://[::ffff:0:7f00:1]/x.jpg', /IPv4-translated .*127\.0\.0\.1/],
  ['NAT64 of a private IPv4', 'http://[64:ff9b::10.0.0.1]/x.jpg', /NAT64 .*\(64:ff9b::\/96\).*10\.0\.0\.1, a private/],
  ['NAT64 of loopback', 'http://[64:ff9b::7f00:1]/x.jpg', /NAT64 .*127\.0\.0\.1/],
  ['6to4 of a private IPv4', 'http://[2002:a00:1::1]/x.jpg', /6to4 .*\(2002::\/16\).*10\.0\.0\.1, a private/],
  ['6to4 of CGNAT', 'http://[2002:6440:1::]/x.jpg', /6to4 .*100\.64\.0\.1, a carrier-grade NAT/],
  // Teredo: server 65.54.227.120 (public), client 10.0.0.1 stored inverted (f5ff:fffe).
  ['Teredo, private client', 'http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/x.jpg', /Teredo .*10\.0\.0\.1, a private/],
  ['Teredo, private server', 'http://[2001:0:a00:1:8000:63bf:f7f7:f7f7]/x.jpg', /Teredo .*10\.0\.0\.1, a private/],
  // Names.
  ['localhost', 'http://localhost:8080/x.jpg', /^localhost is a localhost name/],
  ['localhost, upper case', 'HTTP://LOCALHOST/x.jpg', /^localhost is a localhost name/],
  ['localhost with a trailing dot', 'http://localhost./x.jpg', /localhost name/],
  ['a .localhost name', 'http://media.localhost/x.jpg', /^media\.localhost is a localhost name/],
  ['a .localhost name with a trailing dot', 'http://media.localhost./x.jpg', /localhost name/],
  ['percent-encoded localhost', 'http://%6c%6f%63%61%6c%68%6f%73%74/x.jpg', /^localhost is a localhost name/],
  ['localhost in enclosed letters (IDNA maps it)', 'http://\u24dbocalhost/x.jpg', /^localhost is a localhost name/],
  ['an mDNS .local name', 'http://printer.local/x.jpg', /\.local/],
  ['an .internal name (cloud metadata)', 'http://metadata.google.internal/x.jpg', /\.internal/],
  ['a .home.arpa name', 'http://nas.home.arpa/x.jpg', /home\.arpa/],
  // Userinfo and fragment tricks: the text before @ or # is not the host.
  ['public-looking userinfo', 'http://media.example.com@127.0.0.1/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['userinfo with a port', 'http://media.example.com:443@10.0.0.1/x.jpg', /^10\.0\.0\.1 is a private/],
  ['a fragment holding @', 'http://127.0.0.1#@media.example.com/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['a query holding @', 'http://127.0.0.1?@media.example.com/x.jpg', /^127\.0\.0\.1 is a loopback/],
  ['a backslash path', 'https://169.254.169.254\\media.example.com/x.jpg', /^169\.254\.169\.254 is a link-local/],
];

// Public unicast addresses and host names: names are taken as written (nothing is resolved).
const ACCEPTED: string[] = [
  'https://cdn.example.com/a.jpg',
  'https://CDN.Example.COM./a.jpg',
  'http://8.8.8.8/a.jpg',
  'http://1.1.1.1:8080/a.jpg',
  'http://172.32.0.1/a.jpg',
  'http://100.128.0.1/a.jpg',
  'http://134744072/a.jpg', // 8.8.8.8 as one number: numeric forms are fine when the address is public
  'https://[2606:4700::1111]/a.jpg',
  'https://[2001:4860:4860::8888]/a.jpg',
  'https://[::ffff:8.8.8.8]/a.jpg',
  'https://[64:ff9b::808:808]/a.jpg',
  'https://[2002:808:808::1]/a.jpg',
  'https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/a.jpg', // Teredo: server 65.54.227.120, client 8.8.8.8
  'https://bücher.example/a.jpg',
  'https://xn--bcher-kva.example/a.jpg',
  'https://user:secret@cdn.example.com/a.jpg',
  'https://127.0.0.1.nip.example.com/a.jpg', // a name, not an address: names are not resolved
  'https://localhost.example.com/a.jpg',
  // A single-label name (compose's `callbacks`) is a name like any other: see public-host.ts.
  'http://callbacks:8787/callbacks/video',
];

describe('nonPublicUrlReason: the host as the WHATWG URL parser reads it', () => {
  it.each(REFUSED)('refuses %s: %s', (_form, url, reason) => {
    expect(isHttpUrl(url)).toBe(true);
    const got = nonPublicUrlReason(url);
    expect(got).toBeDefined();
    if (typeof reason === 'string') expect(got).toBe(reason);
    else expect(got).toMatch(reason);
    // The sandbox reaches the same verdict, with the same classifier.
    expect(publicUrlProblem(url, STRICT)).toBe(`must be a public address (${got})`);
    // ALLOW_PRIVATE_URLS lets every one of them through.
    expect(nonPublicUrlReason(url, { allowPrivateUrls: true })).toBeUndefined();
  });

  it.each(ACCEPTED)('accepts %s', (url) => {
    expect(isHttpUrl(url)).toBe(true);
    expect(nonPublicUrlReason(url)).toBeUndefined();
    expect(publicUrlProblem(url, STRICT)).toBeUndefined();
  });

  it('a tab inside the host: not an http(s) URL, to the clients and to the sandbox alike (no whitespace in a URL)', () => {
    const url = 'http://127.0.0.\t1/x.jpg';
    expect(isHttpUrl(url)).toBe(false);
    expect(sandboxIsHttpUrl(url)).toBe(false);
    // What the WHATWG parser would have read (the tab removed) is loopback all the same.
    expect(publicUrlProblem(url.replace('\t', ''), STRICT)).toMatch(
      /^must be a public address \(127\.0\.0\.1 is a loopback/,
    );
  });

  it.each([
    'http://256.1.1.1/a.jpg',
    'http://1.2.3.4.5/a.jpg',
    'http://foo.0x7f.1/a.jpg',
    'http://[fe80::1%25eth0]/a.jpg',
    'http://[::1/a.jpg',
    'http://a b/a.jpg',
    'http://:80/a.jpg',
    'ftp://cdn.example.com/a.jpg',
    'cdn.example.com/a.jpg',
  ])('%s is not an http(s) URL the parser accepts', (url) => {
    expect(isHttpUrl(url)).toBe(false);
  });
});

describe('hostOf: the parser hostname', () => {
  it.each([
    ['http://127.0.0.1\\@media.example.com/x.jpg', '127.0.0.1'],
    ['http://%31%32%37.0.0.1/x.jpg', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://media.example.com@10.0.0.1:8080/', '10.0.0.1'],
    ['HTTPS://CDN.Example.COM/a.jpg', 'cdn.example.com'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]:80/', '[::ffff:7f00:1]'],
    ['https://bücher.example/a.jpg', 'xn--bcher-kva.example'],
  ])('%s: %s', (url, host) => {
    expect(hostOf(url)).toBe(host);
  });

  it('is undefined when there is no host', () => {
    expect(hostOf('not a url')).toBeUndefined();
    expect(hostOf('http://')).toBeUndefined();
  });
});

describe('nonPublicHostReason: a host as written, read as the parser would', () => {
  it.each([
    '127.0.0.1',
    '::1',
    '[::1]',
    'fd00::1',
    '0x7f.1',
    '017700000001',
    '::ffff:10.0.0.1',
    'LOCALHOST',
    '100.64.0.1',
  ])('refuses %s', (host) => {
    expect(nonPublicHostReason(host)).toBeDefined();
  });

  it.each(['cdn.example.com', '8.8.8.8', '2606:4700::1111', '[2606:4700::1111]', 'callbacks'])('accepts %s', (host) => {
    expect(nonPublicHostReason(host)).toBeUndefined();
  });

  it.each(['', 'a/b', 'a@b', 'a b', 'example.com:80', '[::1'])('refuses %j, which is not a host', (host) => {
    expect(nonPublicHostReason(host)).toMatch(/not a valid host|has no host/);
  });
});
