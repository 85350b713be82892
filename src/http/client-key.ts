// Who a client is, for the limits counted per client without a key (the preview budget, the
// rate limit of requests without a valid key): an IPv4 address as it is; an IPv6 address by its
// /64, since one host is usually given a whole /64 and a per-address count would be no count at
// all; an IPv4 address written as IPv6 (::ffff:a.b.c.d) as the IPv4 address it is.
import ipaddr from 'ipaddr.js';

export function clientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}
