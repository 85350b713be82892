// TRUST_PROXY: which reverse proxies may tell the service the client's address in X-Forwarded-For.
// The address matters for the per-client work budget of the unauthenticated preview and for the
// rate limit of requests without a valid key. Behind a proxy every request comes from the proxy's
// address, so without this setting all clients would share one budget; trusting the header from
// anyone else would let a client pick a fresh address per request and dodge its budget.
import net from 'node:net';

/** Fastify's trustProxy: false, true (any hop), a hop count, or the proxies' addresses/CIDRs. */
export type TrustProxy = boolean | number | string[];

const maxHops = 10;

/**
 * Parses TRUST_PROXY: unset or "false" (the default: X-Forwarded-For is ignored), "true", a number
 * of proxy hops from 1 to 10, or a comma-separated list of proxy addresses or CIDR ranges.
 * Returns the setting, or a sentence saying what to fix.
 */
export function parseTrustProxy(raw: string | undefined): { value: TrustProxy } | { problem: string } {
  if (raw === undefined || raw === 'false') return { value: false };
  if (raw === 'true') return { value: true };
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops >= 1 && hops <= maxHops) return { value: hops };
    return { problem: `TRUST_PROXY as a hop count must be from 1 to ${maxHops}; got "${raw}".` };
  }
  const entries = raw.split(',').map((entry) => entry.trim()).filter(Boolean);
  const wrong = entries.filter((entry) => !isAddressOrRange(entry));
  if (entries.length === 0 || wrong.length > 0) {
    return {
      problem: `TRUST_PROXY must be true, false, a hop count (1–${maxHops}) or proxy addresses such as 10.0.0.5,172.16.0.0/12; "${wrong.join('", "') || raw}" is none of these.`,
    };
  }
  return { value: entries };
}

function isAddressOrRange(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const family = net.isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

/**
 * The setting in the form Fastify's types accept. A hop count becomes the function proxy-addr
 * builds for one: the first `hops` addresses back from the connection are proxies.
 */
export function fastifyTrustProxy(value: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}
