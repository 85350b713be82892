// Which network addresses and hosts a server-side image fetch may reach.
// The rule for addresses is an allow-list of one kind: only global unicast addresses pass. Loopback,
// private (RFC 1918, IPv6 unique-local), link-local (cloud metadata at 169.254.169.254), CGNAT,
// unspecified, multicast, broadcast, reserved/documentation ranges, and every IPv6 form that carries
// an IPv4 address (IPv4-compatible, IPv4-mapped, IPv4-translated, NAT64, 6to4, Teredo), which can
// smuggle a private IPv4 address, all fail.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** True when `address` (an IP literal) is a global unicast address a public fetch may connect to. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && embeddedIpv4(parsed as ipaddr.IPv6) !== undefined) return false;
  return parsed.range() === 'unicast';
}

/**
 * IPv6 prefixes whose addresses carry an IPv4 address, with where it sits (bit offset): the
 * IPv4-compatible (::/96, which ipaddr.js calls unicast), IPv4-mapped and IPv4-translated forms,
 * NAT64 (well-known and local-use), 6to4 and Teredo (the server's address). Any of them can reach
 * an IPv4 host, private or not, so none is public, whatever its IPv4 is.
 */
const ipv4Carriers: { prefix: [ipaddr.IPv6, number]; offset: number }[] = [
  { prefix: ipaddr.IPv6.parseCIDR('::/96'), offset: 96 },
  { prefix: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), offset: 96 },
  { prefix: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), offset: 96 },
  { prefix: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), offset: 96 },
  { prefix: ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'), offset: 96 },
  { prefix: ipaddr.IPv6.parseCIDR('2002::/16'), offset: 16 },
  { prefix: ipaddr.IPv6.parseCIDR('2001::/32'), offset: 32 },
];

/** The IPv4 address an IPv6 address carries (see ipv4Carriers), or undefined. `::` and `::1` carry none. */
export function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = address.range();
  if (range === 'unspecified' || range === 'loopback') return undefined;
  const carrier = ipv4Carriers.find(({ prefix }) => address.match(prefix));
  if (!carrier) return undefined;
  const bytes = address.toByteArray();
  const start = carrier.offset / 8;
  return new ipaddr.IPv4(bytes.slice(start, start + 4));
}

/** The URL's host name as an address or DNS name: brackets off IPv6 literals, no trailing dot. */
export function bareHostName(url: URL): string {
  const host = url.hostname.toLowerCase();
  const unbracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return unbracketed.replace(/\.+$/, '');
}

/** True when the host is an IP literal (so no DNS is involved and the check is on the literal). */
export const isIpLiteral = (host: string): boolean => net.isIP(host) !== 0;

/**
 * Hosts an operator trusts with REMOTE_IMAGES_ALLOWLIST. An entry is `name`, `name:port` or
 * `*.domain` (any subdomain, not the domain itself). A listed host may be fetched at any address,
 * including loopback and private ones: the allowlist is the only way to reach an internal image
 * server, so list exact `host:port` pairs for those.
 */
export class HostAllowlist {
  private readonly entries: { host: string; port?: string; subdomains: boolean }[];

  constructor(entries: readonly string[]) {
    this.entries = entries.map((entry) => parseEntry(entry));
  }

  get size(): number {
    return this.entries.length;
  }

  matches(url: URL): boolean {
    const host = bareHostName(url);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return this.entries.some((entry) => {
      if (entry.port !== undefined && entry.port !== port) return false;
      return entry.subdomains ? host.endsWith(`.${entry.host}`) : host === entry.host;
    });
  }
}

/** Problems with allowlist entries, each as a sentence an operator can act on (for config checks). */
export function allowlistProblems(entries: readonly string[], setting = 'REMOTE_IMAGES_ALLOWLIST'): string[] {
  return entries.flatMap((entry) => {
    try {
      parseEntry(entry, setting);
      return [];
    } catch (error) {
      return [(error as Error).message];
    }
  });
}

function parseEntry(raw: string, setting = 'REMOTE_IMAGES_ALLOWLIST'): { host: string; port?: string; subdomains: boolean } {
  const entry = raw.trim().toLowerCase();
  const subdomains = entry.startsWith('*.');
  const rest = subdomains ? entry.slice(2) : entry;
  let url: URL;
  try {
    url = new URL(`http://${rest}`);
  } catch {
    throw new Error(`${setting} entry "${raw}" is not a host name, host:port or *.domain.`);
  }
  if (url.pathname !== '/' || url.username || url.search || url.hash || !url.hostname) {
    throw new Error(`${setting} entry "${raw}" must be a host name, host:port or *.domain, without a scheme or path.`);
  }
  // An explicit :80 is dropped by the URL parser; keep what was written so the match stays exact.
  const writtenPort = /:(\d+)$/.exec(rest)?.[1];
  return { host: bareHostName(url), port: writtenPort, subdomains };
}

/** Resolves a host name to all its addresses with the system resolver (dns.lookup, which also reads /etc/hosts). */
export const systemResolve = async (hostName: string): Promise<string[]> =>
  (await dns.promises.lookup(hostName, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * A connection's own DNS step for a server-side request (a remote image, a webhook): resolves,
 * refuses if ANY address is not public (unless the host is trusted, i.e. allow-listed), and hands
 * exactly those addresses to the socket, so a DNS answer cannot change between check and connect.
 * IP literals never reach a lookup; callers check them before connecting.
 */
export function checkedLookup(resolve: (hostName: string) => Promise<string[]>, trusted: boolean, refuse: (message: string) => Error): net.LookupFunction {
  return (hostName, options, callback) => {
    const reply = callback as (error: Error | null, address: string | dns.LookupAddress[], family?: number) => void;
    resolve(hostName)
      .then((found) => {
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => net.isIP(a) === options.family) : found;
        if (wanted.length === 0) throw refuse(`${hostName} has no address`);
        const forbidden = trusted ? undefined : found.find((address) => !isPublicAddress(address));
        if (forbidden !== undefined) throw refuse(`${hostName} resolves to ${forbidden}, not a public address`);
        if (options.all) reply(null, wanted.map((address) => ({ address, family: net.isIP(address) })));
        else reply(null, wanted[0]!, net.isIP(wanted[0]!));
      })
      .catch((error: Error) => reply(error, ''));
  };
}
