// Which network addresses and hosts a server-side image fetch may reach.
// The rule for addresses is an allow-list of one kind: only global unicast addresses pass. Loopback,
// private (RFC 1918, IPv6 unique-local), link-local (cloud metadata at 169.254.169.254), CGNAT,
// unspecified, multicast, broadcast, reserved/documentation ranges, IPv4-mapped IPv6 and the
// translation prefixes (NAT64, 6to4, Teredo), which can smuggle a private IPv4 address, all fail.
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** True when `address` (an IP literal) is a global unicast address a public fetch may connect to. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.parse(address).range() === 'unicast';
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
export function allowlistProblems(entries: readonly string[]): string[] {
  return entries.flatMap((entry) => {
    try {
      parseEntry(entry);
      return [];
    } catch (error) {
      return [(error as Error).message];
    }
  });
}

function parseEntry(raw: string): { host: string; port?: string; subdomains: boolean } {
  const entry = raw.trim().toLowerCase();
  const subdomains = entry.startsWith('*.');
  const rest = subdomains ? entry.slice(2) : entry;
  let url: URL;
  try {
    url = new URL(`http://${rest}`);
  } catch {
    throw new Error(`REMOTE_IMAGES_ALLOWLIST entry "${raw}" is not a host name, host:port or *.domain.`);
  }
  if (url.pathname !== '/' || url.username || url.search || url.hash || !url.hostname) {
    throw new Error(`REMOTE_IMAGES_ALLOWLIST entry "${raw}" must be a host name, host:port or *.domain, without a scheme or path.`);
  }
  // An explicit :80 is dropped by the URL parser; keep what was written so the match stays exact.
  const writtenPort = /:(\d+)$/.exec(rest)?.[1];
  return { host: bareHostName(url), port: writtenPort, subdomains };
}
