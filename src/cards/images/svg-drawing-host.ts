// Where SVG drawings are started: a small process of the service's own (the drawing host,
// svg-drawing-host-process.ts) that spawns each drawing, kills it at its time limit or when asked,
// and sends its PNG back. The service does not spawn drawings itself because forking a process
// copies the parent's page tables: with the service at 0.5–1 GB, each spawn held its event loop
// (and /health) for 80–230 ms, fifty times for a document of fifty SVGs.
//
// The host is started with the SvgRasterizer, while the service is still small, and again on the
// next drawing if it ever dies. It does not keep the service running, and ends with it.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface DrawingOptions {
  density: number;
  limitInputPixels: number;
  timeoutMs: number;
}

/** From the service to the host. */
export type HostMessage = { type: 'draw'; id: number; svg: Uint8Array; options: DrawingOptions } | { type: 'cancel'; id: number };

/** From the host to the service: the PNG, or why there is none. */
export type HostAnswer = { type: 'drawn'; id: number; png: Uint8Array } | { type: 'failed'; id: number; message: string };

interface Pending {
  resolve(png: Buffer): void;
  reject(error: Error): void;
  /** The host drawing it: if that one dies, the drawing is lost with it. */
  host: ChildProcess;
}

// From source (tsx) this module is .ts and so is the host's script; from dist/ both are .js.
const hostScript = fileURLToPath(new URL(`./svg-drawing-host-process${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));

export class SvgDrawingHost {
  private host?: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;

  constructor() {
    this.start();
  }

  /** Process id of the host, for operators and tests. */
  get pid(): number | undefined {
    return this.host?.pid;
  }

  /**
   * Draws `svg` in a process of its own. Rejects with the reason when `signal` aborts (the drawing
   * is killed), and with an Error saying why when the drawing fails or overruns its time.
   */
  draw(svg: Buffer, options: DrawingOptions, signal: AbortSignal): Promise<Buffer> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.closed) return Promise.reject(new Error('the drawing host is closed'));
    const host = this.host?.connected ? this.host : this.start();
    const id = ++this.nextId;
    return new Promise<Buffer>((resolve, reject) => {
      const onAbort = () => {
        this.forget(id);
        if (host.connected) host.send({ type: 'cancel', id } satisfies HostMessage);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const settle = <T>(then: (value: T) => void) => (value: T) => {
        signal.removeEventListener('abort', onAbort);
        then(value);
      };
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject), host });
      this.holdWhileDrawing();
      host.send({ type: 'draw', id, svg, options } satisfies HostMessage, (error) => {
        if (error) this.fail(id, error.message);
      });
    });
  }

  /** Ends the host, which kills every drawing under way; drawings still asked for are refused. */
  close(): void {
    this.closed = true;
    this.host?.kill('SIGKILL');
    for (const id of [...this.pending.keys()]) this.fail(id, 'the drawing host is closed');
  }

  private start(): ChildProcess {
    // The same loader flags as the service (tsx when running from source); binary messages.
    const host = fork(hostScript, [], { execArgv: process.execArgv, serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    host.on('message', (answer: HostAnswer) => {
      const waiting = this.forget(answer.id);
      if (!waiting) return;
      if (answer.type === 'drawn') waiting.resolve(Buffer.from(answer.png.buffer, answer.png.byteOffset, answer.png.byteLength));
      else waiting.reject(new Error(answer.message));
    });
    host.once('exit', () => {
      if (this.host === host) this.host = undefined;
      // Its drawings died with it.
      for (const [id, { host: drawnBy }] of this.pending) if (drawnBy === host) this.fail(id, 'the drawing host ended');
    });
    host.on('error', () => {});
    // Neither the process nor its channel keeps the service running.
    host.unref();
    host.channel?.unref();
    this.host = host;
    return host;
  }

  private fail(id: number, message: string): void {
    this.forget(id)?.reject(new Error(message));
  }

  private forget(id: number): Pending | undefined {
    const waiting = this.pending.get(id);
    this.pending.delete(id);
    this.holdWhileDrawing();
    return waiting;
  }

  /** An answer awaited keeps the process running (as a spawned drawing's pipes did); an idle host does not. */
  private holdWhileDrawing(): void {
    if (this.pending.size > 0) this.host?.channel?.ref();
    else this.host?.channel?.unref();
  }
}
