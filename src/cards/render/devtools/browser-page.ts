// One page in a browser context of its own (its own cookies, cache and storage), driven over the
// DevTools protocol: what the render and diagram pages are built on. Every request the page or any
// frame or worker of it makes goes to the page's `route` handler, which answers it, lets it
// through or refuses it (Fetch domain), so no request leaves unseen.
import type { Protocol } from 'devtools-protocol';
import type { DevToolsSession, PipeConnection } from './pipe-connection.js';

/** A request the page made, as its `route` handler sees it. */
export interface PageRequest {
  url: string;
  fulfill(response: { status: number; contentType: string; body: string | Buffer; headers?: Record<string, string> }): Promise<void>;
  /** Lets the request go to the network as it is. */
  continue(): Promise<void>;
  /** Refuses the request: the page sees it blocked by the client. */
  abort(): Promise<void>;
}

export interface BrowserPageOptions {
  javaScriptEnabled: boolean;
  viewport: { width: number; height: number };
  /** Answers every request of the page. */
  route: (request: PageRequest) => Promise<void>;
  /** A script run in every document of the page before its own scripts. */
  initScript?: string;
}

/** A script in the page threw, or its promise was rejected. */
export class PageScriptError extends Error {
  constructor(details: Protocol.Runtime.ExceptionDetails) {
    super(details.exception?.description ?? details.text);
    this.name = 'PageScriptError';
  }
}

/**
 * The generic font families of a headless browser on Linux, named rather than left to the host's
 * fontconfig defaults, so text that falls back to `serif` or `monospace` looks the same on every host.
 */
const genericFontFamilies = { standard: 'Times New Roman', fixed: 'Monospace', serif: 'Times New Roman', sansSerif: 'Arial', cursive: 'Comic Sans MS', fantasy: 'Impact' };

export class BrowserPage {
  private crashListeners = new Set<() => void>();
  private crashedFlag = false;

  private constructor(
    private readonly connection: PipeConnection,
    private readonly contextId: string,
    private readonly targetId: string,
    /** The page's own session, on which every command of this class is sent. */
    readonly session: DevToolsSession,
  ) {
    session.on('Inspector.targetCrashed', () => {
      this.crashedFlag = true;
      for (const listener of this.crashListeners) listener();
      this.crashListeners.clear();
    });
  }

  static async open(connection: PipeConnection, options: BrowserPageOptions): Promise<BrowserPage> {
    const { browserContextId } = await connection.root.send('Target.createBrowserContext', { disposeOnDetach: true });
    try {
      const { targetId } = await connection.root.send('Target.createTarget', { url: 'about:blank', browserContextId });
      const { sessionId } = await connection.root.send('Target.attachToTarget', { targetId, flatten: true });
      const page = new BrowserPage(connection, browserContextId, targetId, connection.session(sessionId));
      await page.prepare(page.session, options, true);
      return page;
    } catch (error) {
      await connection.root.send('Target.disposeBrowserContext', { browserContextId }).catch(() => {});
      throw error;
    }
  }

  /**
   * Sets up the page's session, or that of a frame or worker it starts (`main` false): requests
   * routed, and every target it starts attached the same way before it may run.
   */
  private async prepare(session: DevToolsSession, options: BrowserPageOptions, main: boolean): Promise<void> {
    session.on('Fetch.requestPaused', (event) => {
      void options.route(routedRequest(session, event)).catch(() => session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' }).catch(() => {}));
    });
    session.on('Target.attachedToTarget', ({ sessionId, targetInfo }) => {
      const child = this.connection.session(sessionId);
      this.prepare(child, options, false).catch(() => {
        // A child that cannot be routed is not let run: its target is closed.
        void this.connection.root.send('Target.closeTarget', { targetId: targetInfo.targetId }).catch(() => {});
      });
    });
    const steps: Promise<unknown>[] = [
      session.send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }),
      session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
    ];
    // Frames in a process of their own (other origins) are targets of their own: scripts are off in them too.
    if (!options.javaScriptEnabled) steps.push(session.send('Emulation.setScriptExecutionDisabled', { value: true }));
    if (main) {
      steps.push(
        session.send('Page.enable'),
        session.send('Inspector.enable'),
        session.send('Page.setFontFamilies', { fontFamilies: genericFontFamilies }),
        session.send('Emulation.setDeviceMetricsOverride', { ...options.viewport, deviceScaleFactor: 1, mobile: false }),
      );
      if (options.initScript) steps.push(session.send('Page.addScriptToEvaluateOnNewDocument', { source: options.initScript }));
    }
    await Promise.all(steps);
    if (!main) await session.send('Runtime.runIfWaitingForDebugger');
  }

  get crashed(): boolean {
    return this.crashedFlag;
  }

  /** Calls `listener` once if the page's renderer crashes. */
  onCrash(listener: () => void): void {
    if (this.crashedFlag) listener();
    else this.crashListeners.add(listener);
  }

  /** Loads `url` and resolves once its load event has fired. */
  async goto(url: string): Promise<void> {
    const loaded = this.session.once('Page.loadEventFired');
    const { errorText } = await this.session.send('Page.navigate', { url });
    if (errorText) throw new Error(`${errorText} at ${url}`);
    await loaded;
  }

  /** Evaluates a script in the page and returns its JSON value (evaluateIn). */
  evaluate<T>(expression: string): Promise<T>;
  evaluate<I, T>(inPage: (input: I) => T | Promise<T>, argument: I): Promise<T>;
  evaluate<T>(inPage: () => T | Promise<T>): Promise<T>;
  evaluate(script: string | ((input: never) => unknown), argument?: unknown): Promise<unknown> {
    return evaluateIn(this.session, script, argument);
  }

  /** Prints the page to PDF (Page.printToPDF's options) and returns the file. */
  async pdf(options: Protocol.Page.PrintToPDFRequest): Promise<Buffer> {
    const { data } = await this.session.send('Page.printToPDF', { marginTop: 0, marginBottom: 0, marginLeft: 0, marginRight: 0, ...options });
    return Buffer.from(data, 'base64');
  }

  /**
   * A DevTools session of its own on this page, for inspecting it (DOM, CSS) without touching the
   * page's session. The caller detaches it.
   */
  async inspect(): Promise<DevToolsSession> {
    const { sessionId } = await this.connection.root.send('Target.attachToTarget', { targetId: this.targetId, flatten: true });
    return this.connection.session(sessionId);
  }

  /** Closes the page and its context, with whatever they held. */
  async close(): Promise<void> {
    this.crashListeners.clear();
    this.connection.forget(this.session.id!);
    await this.connection.root.send('Target.disposeBrowserContext', { browserContextId: this.contextId });
  }
}

/**
 * Evaluates `script` in the page of `session` (awaited when it is a promise) and returns its value;
 * a function is called with `argument` first. A function travels as its source text, so it must
 * be self-contained; a string must be an expression. Values travel as JSON, save that numbers
 * JSON has no words for (Infinity, NaN) keep their value both ways: a fold's "no limit" is Infinity.
 */
export async function evaluateIn(session: DevToolsSession, script: string | ((input: never) => unknown), argument?: unknown): Promise<unknown> {
  const call = typeof script === 'string' ? script : `(${script.toString()})(${argument === undefined ? '' : literal(argument)})`;
  const expression = `(async () => {
  const value = await (${call}
  );
  return value === undefined ? undefined : JSON.stringify(value, (key, v) => (typeof v === 'number' && !Number.isFinite(v) ? { ${JSON.stringify(numberKey)}: String(v) } : v));
})()`;
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
  if (exceptionDetails) throw new PageScriptError(exceptionDetails);
  const text = result.value as string | undefined;
  if (text === undefined) return undefined;
  return text.includes(`{"${numberKey}":`) ? JSON.parse(text, reviveNumber) : JSON.parse(text);
}

/** Marks a number that JSON cannot hold, in a result: `{ "$number": "Infinity" }`. */
const numberKey = '$number';

function reviveNumber(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && numberKey in value && Object.keys(value).length === 1) return Number((value as Record<string, string>)[numberKey]);
  return value;
}

/** `value` (JSON data, with any number) as a JavaScript literal. */
function literal(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(',')}]`;
  return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}:${literal(item)}`).join(',')}}`;
}

function routedRequest(session: DevToolsSession, event: Protocol.Fetch.RequestPausedEvent): PageRequest {
  const { requestId } = event;
  return {
    url: event.request.url,
    async fulfill({ status, contentType, body, headers = {} }) {
      const responseHeaders = Object.entries({ 'content-type': contentType, ...headers }).map(([name, value]) => ({ name, value }));
      const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      await session.send('Fetch.fulfillRequest', { requestId, responseCode: status, responseHeaders, body: bytes.toString('base64') });
    },
    async continue() {
      await session.send('Fetch.continueRequest', { requestId });
    },
    async abort() {
      await session.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' });
    },
  };
}
