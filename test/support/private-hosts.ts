// Hosts that are not public addresses (spec: media URLs and callback addresses are public), as written in
// a URL: by name, IPv4 and IPv6 literal, and a numeric form a resolver maps onto loopback.
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
];
