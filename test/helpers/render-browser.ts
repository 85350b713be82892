// The service's own browser for tests of its pages (render pages, diagram pages): launched the
// way the service launches it (browser-instance.ts), and a way into the page a test just opened on
// it, to look at what that page holds without going through the page's own class.
import pino from 'pino';
import { BrowserInstance } from '../../src/cards/render/browser-instance.js';
import { evaluateIn } from '../../src/cards/render/devtools/browser-page.js';
import type { DevToolsSession } from '../../src/cards/render/devtools/pipe-connection.js';

export function launchRenderBrowser(): Promise<BrowserInstance> {
  return BrowserInstance.launch(process.env.CHROMIUM_PATH, 1, pino({ level: 'silent' }));
}

/** A session of the test's own on a page of the browser, with the few things tests do through it. */
export interface PageProbe {
  session: DevToolsSession;
  evaluate<T>(inPage: () => T | Promise<T>): Promise<T>;
  evaluate<I, T>(inPage: (input: I) => T | Promise<T>, argument: I): Promise<T>;
  /** Clicks at (x, y) in CSS px of the viewport, as a mouse would. */
  click(x: number, y: number): Promise<void>;
  /** The message of every dialog (alert, confirm, prompt) the page opened since; each is dismissed. */
  dialogs: string[];
  detach(): Promise<void>;
}

/** Attaches to the page opened last on `browser`. */
export async function probeLastPage(browser: BrowserInstance): Promise<PageProbe> {
  const { targetInfos } = await browser.connection.root.send('Target.getTargets');
  const page = targetInfos.filter((target) => target.type === 'page').at(-1);
  if (!page) throw new Error('the browser has no page');
  const { sessionId } = await browser.connection.root.send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  const session = browser.connection.session(sessionId);
  const dialogs: string[] = [];
  session.on('Page.javascriptDialogOpening', ({ message }) => {
    dialogs.push(message);
    void session.send('Page.handleJavaScriptDialog', { accept: false }).catch(() => {});
  });
  await session.send('Page.enable');
  return {
    session,
    dialogs,
    evaluate: ((script: (input: never) => unknown, argument?: unknown) => evaluateIn(session, script, argument)) as PageProbe['evaluate'],
    async click(x, y) {
      for (const type of ['mousePressed', 'mouseReleased'] as const) await session.send('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 });
    },
    detach: () => session.detach(),
  };
}
