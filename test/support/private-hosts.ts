// Hosts that are not public addresses (spec: media URLs and callback addresses are public), as written in
// a URL: by name, IPv4 and IPv6 literal, numeric and percent-encoded forms the URL parser reads as an
// address, IPv6 forms that embed a private IPv4, and text that hides the real host (a backslash ends it).
// The full table of bypass forms: test/unit/url-rules.test.ts.
export const PRIVATE_HOSTS: Array<[kind: string, host: string]> = [
  ['localhost', 'localhost'],
  ['a .localhost name', 'media.localhost'],
  ['loopback 127/8', '127.0.0.1'],
  ['private 10/8', '10.20.30.40'],
  ['private 172.16/12', '172.16.0.9'],
  ['private 192.168/16', '192.168.1.10'],
  ['link-local 169.254/16', '169.254.169.254'],
  ['IPv6 loopback', '[::1]'],
  ['IPv6 link-local', '[fe80::1]'],
  ['IPv6 unique-local', '[fd00::5]'],
  ['IPv4-mapped loopback', '[::ffff:127.0.0.1]'],
  ['a numeric loopback', '2130706433'],
  ['a short hexadecimal loopback', '0x7f.1'],
  ['a percent-encoded loopback', '%31%32%37.0.0.1'],
  ['loopback behind a backslash', '127.0.0.1\\@media.example.com'],
  ['carrier-grade NAT 100.64/10', '100.64.0.1'],
  ['this network 0/8', '0.0.0.0'],
  ['multicast', '224.0.0.251'],
  ['broadcast', '255.255.255.255'],
  ['IPv4-mapped loopback in hexadecimal', '[::ffff:7f00:1]'],
  ['IPv6 site-local', '[fec0::1]'],
  ['NAT64 of a private IPv4', '[64:ff9b::10.0.0.1]'],
  ['6to4 of a private IPv4', '[2002:c0a8:1::1]'],
];
