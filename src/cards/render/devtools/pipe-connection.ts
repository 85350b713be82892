// The DevTools protocol spoken to Chromium over the pipe it opens with --remote-debugging-pipe:
// it reads commands from file descriptor 3 and writes replies and events to descriptor 4, each
// message a JSON text ended by a NUL byte. Sessions of the targets (pages) travel on the same pipe,
// told apart by their `sessionId` ("flat" sessions, Target.attachToTarget with flatten).
//
// Why not a client library: Playwright took 0.46–0.61 s to load, half the service's start-up
// target, and puppeteer-core 0.2 s; chrome-remote-interface loads fast but speaks only WebSocket to
// a TCP port, which any process on the host could connect to and drive the browser through.
// What the service needs of the protocol is this file (docs/performance.md#start-up).
import type { Readable, Writable } from 'node:stream';
import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping.js';

export type Command = keyof ProtocolMapping.Commands;
export type CommandResult<M extends Command> = ProtocolMapping.Commands[M]['returnType'];
export type EventName = keyof ProtocolMapping.Events;
export type EventParams<E extends EventName> = ProtocolMapping.Events[E][0];

/** A command Chromium answered with an error, or one that could not be answered (the pipe closed). */
export class ProtocolError extends Error {
  constructor(method: string, message: string) {
    super(`${method}: ${message}`);
    this.name = 'ProtocolError';
  }
}

interface Pending {
  method: string;
  sessionId: string | undefined;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

type Listener = (params: never) => void;

/** The commands and events of one target (a page) or of the browser itself (no session id). */
export class DevToolsSession {
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(
    private readonly connection: PipeConnection,
    /** Undefined for the browser's own session. */
    readonly id: string | undefined,
  ) {}

  send<M extends Command>(method: M, ...params: ProtocolMapping.Commands[M]['paramsType']): Promise<CommandResult<M>> {
    return this.connection.send(method, params[0], this.id);
  }

  /** Calls `listener` on each `event` of this session; returns what removes it. */
  on<E extends EventName>(event: E, listener: (params: EventParams<E>) => void): () => void {
    const set = this.listeners.get(event) ?? new Set<Listener>();
    this.listeners.set(event, set);
    set.add(listener as Listener);
    return () => set.delete(listener as Listener);
  }

  /** Resolves with the next `event` of this session. */
  once<E extends EventName>(event: E): Promise<EventParams<E>> {
    return new Promise((resolve) => {
      const off = this.on(event, (params) => {
        off();
        resolve(params);
      });
    });
  }

  /** Stops talking to the target (Target.detachFromTarget); the target itself lives on. */
  async detach(): Promise<void> {
    if (this.id === undefined) return;
    this.connection.forget(this.id);
    await this.connection.root.send('Target.detachFromTarget', { sessionId: this.id });
  }

  /** @internal Delivers one event of this session to its listeners. */
  emit(method: string, params: unknown): void {
    for (const listener of this.listeners.get(method) ?? []) (listener as (params: unknown) => void)(params);
  }
}

export class PipeConnection {
  /** The browser's own session: Target, Browser and the other browser-wide domains. */
  readonly root: DevToolsSession;
  private readonly sessions = new Map<string, DevToolsSession>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** The bytes of a message whose end (NUL) has not arrived yet. */
  private partial: Buffer[] = [];
  private closedBy?: Error;
  private readonly closeListeners = new Set<() => void>();

  constructor(
    private readonly toBrowser: Writable,
    fromBrowser: Readable,
  ) {
    this.root = new DevToolsSession(this, undefined);
    fromBrowser.on('data', (chunk: Buffer) => this.receive(chunk));
    fromBrowser.on('close', () => this.close(new Error('the browser closed its DevTools pipe')));
    fromBrowser.on('error', (error) => this.close(error));
    // A write to a browser that just died fails here; the read side reports the end.
    toBrowser.on('error', () => {});
  }

  get closed(): boolean {
    return this.closedBy !== undefined;
  }

  /** Calls `listener` once when the pipe closes (the browser exited, crashed or was killed); soon, if it has. */
  onClose(listener: () => void): void {
    if (this.closedBy) queueMicrotask(listener);
    else this.closeListeners.add(listener);
  }

  /** The session with this id, created on first use: a target's events may come before its attach reply. */
  session(id: string): DevToolsSession {
    const session = this.sessions.get(id) ?? new DevToolsSession(this, id);
    this.sessions.set(id, session);
    return session;
  }

  /**
   * Drops a session (it was detached or its target is gone): its listeners, and its commands still
   * waiting, which fail, since no answer will come.
   */
  forget(id: string): void {
    this.sessions.delete(id);
    for (const [commandId, pending] of this.pending) {
      if (pending.sessionId !== id) continue;
      this.pending.delete(commandId);
      pending.reject(new ProtocolError(pending.method, 'the target is gone'));
    }
  }

  send(method: string, params: unknown, sessionId: string | undefined): Promise<never> {
    if (this.closedBy) return Promise.reject(new ProtocolError(method, this.closedBy.message));
    const id = this.nextId++;
    const message = JSON.stringify({ id, method, params: params ?? {}, ...(sessionId ? { sessionId } : {}) });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, sessionId, resolve: resolve as (result: unknown) => void, reject });
      this.toBrowser.write(`${message}\0`);
    });
  }

  /** Fails every command still waiting, and tells the listeners, once. */
  close(reason: Error): void {
    if (this.closedBy) return;
    this.closedBy = reason;
    for (const { method, reject } of this.pending.values()) reject(new ProtocolError(method, reason.message));
    this.pending.clear();
    for (const listener of this.closeListeners) listener();
    this.closeListeners.clear();
    this.toBrowser.destroy();
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
      this.partial.push(chunk.subarray(start, end));
      const text = Buffer.concat(this.partial).toString('utf8');
      this.partial = [];
      start = end + 1;
      this.dispatch(JSON.parse(text) as Message);
    }
    if (start < chunk.length) this.partial.push(chunk.subarray(start));
  }

  private dispatch(message: Message): void {
    if (message.id !== undefined) {
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      if (message.error) pending.reject(new ProtocolError(pending.method, message.error.message));
      else pending.resolve(message.result);
      return;
    }
    if (!message.method) return;
    const session = message.sessionId === undefined ? this.root : this.sessions.get(message.sessionId);
    session?.emit(message.method, message.params);
    // A target that went away takes its session with it.
    if (message.method === 'Target.detachedFromTarget') {
      const { sessionId } = message.params as { sessionId: string };
      this.forget(sessionId);
    }
  }
}

interface Message {
  id?: number;
  method?: string;
  params?: unknown;
  sessionId?: string;
  result?: unknown;
  error?: { message: string };
}
