// A tripwire for tests that throw SSRF vectors at the service: any socket this process opens to
// an IP address outside loopback is stopped before it connects and recorded, so even a broken
// guard can never send a test's traffic to a private or public address.
import net from 'node:net';

export interface LoopbackTripwire {
  /** Non-loopback addresses something tried to connect to. */
  attempts: string[];
  remove(): void;
}

const isLoopback = (address: string) => /^127\./.test(address) || address === '::1' || /^::ffff:127\./i.test(address);

export function installLoopbackTripwire(): LoopbackTripwire {
  const attempts: string[] = [];
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function connect(this: net.Socket, ...args: unknown[]) {
    // net.createConnection passes its normalized arguments as one array: [options, callback].
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const host = typeof first === 'object' && first !== null ? (first as net.TcpNetConnectOpts).host : typeof args[1] === 'string' ? args[1] : undefined;
    if (typeof host === 'string' && net.isIP(host) && !isLoopback(host)) {
      attempts.push(host);
      throw new Error(`test tripwire: refused a connection to ${host}`);
    }
    return original.apply(this, args as Parameters<typeof original>);
  } as typeof original;
  return {
    attempts,
    remove: () => {
      net.Socket.prototype.connect = original;
    },
  };
}
