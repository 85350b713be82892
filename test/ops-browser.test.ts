// Browser supervision: a crash during renders loses no accepted request and never mixes up
// images; a planned restart fails nothing; a browser that stops answering is replaced; and no
// Chromium process of a replaced browser is left behind.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { BrowserFleet } from '../src/cards/render/browser-fleet.js';
import { BrowserInstance } from '../src/cards/render/browser-instance.js';
import { BrowserPage } from '../src/cards/render/devtools/browser-page.js';
import { EarlyBrowser } from '../src/cards/render/early-browser.js';
import { findChromium } from '../src/cards/render/chromium-executable.js';
import { shellFonts } from '../src/cards/render/page-fonts.js';
import { countNear, decodePng, download } from './helpers/images.js';
import { metric } from './helpers/metrics.js';
import { browserChildrenOf, eventually, processesInGroups, stopProcess, threadNiceValues } from './helpers/processes.js';
import { startService, type RunningService } from './helpers/service.js';

const palette: Array<[number, number, number]> = [
  [220, 20, 20], [20, 160, 40], [20, 50, 210], [210, 160, 0], [160, 20, 190], [0, 160, 160],
  [130, 70, 0], [240, 120, 180], [90, 90, 90], [0, 90, 40], [120, 0, 40], [60, 120, 240],
];

/** A request whose image is recognisable: its own width and a block of its own colour. */
function distinctBody(index: number, blur = 0) {
  const [r, g, b] = palette[index % palette.length]!;
  return {
    markdown: `<div style="height:1000px;background:rgb(${r},${g},${b})${blur ? `;filter:blur(${blur}px)` : ''}"></div>`,
    width: 240 + index * 10,
    scale: 1,
  };
}

/** Checks an answer is either this request's own correct image, or a clean 5xx error. Returns whether it was an image. */
async function assertOwnImageOrCleanError(index: number, result: { status: number; json: any }): Promise<boolean> {
  if (result.status >= 500) {
    assert.equal(typeof result.json.error, 'string');
    assert.equal(typeof result.json.message, 'string');
    return false;
  }
  assert.equal(result.status, 200, JSON.stringify(result.json));
  const png = await decodePng((await download(result.json.images[0].url)).bytes);
  assert.equal(png.width, 240 + index * 10, `request ${index} got an image of its own width`);
  assert.ok(countNear(png, palette[index % palette.length]!, 30) > png.width * 300, `request ${index} got its own colour`);
  return true;
}

describe('a browser crash during renders', () => {
  let service: RunningService;
  /** Lines the service logged about killing its browser. */
  const kills: string[] = [];
  before(async () => {
    service = await startService(
      { RENDER_CONCURRENCY: '2', QUEUE_MAX: '20' },
      {
        log: (line) => {
          if (line.includes('killing it')) kills.push(line);
        },
      },
    );
  });
  after(async () => service.close());

  it('retries the renders it hit on a new browser, gives each request its own image, and leaves no process behind', async () => {
    const browser = browserChildrenOf(process.pid).find((child) => child.pid === service.app.cards.renderer.browserPid);
    assert.ok(browser, 'the browser runs as a child of the service');
    assert.equal(browser.pid, service.app.cards.renderer.browserPid);
    assert.ok(processesInGroups([browser.pid]).length > 1, 'the browser has helper processes in its group');

    const requests = Array.from({ length: 8 }, (_, i) => service.generate(distinctBody(i, 6)));
    assert.ok(await eventually(() => service.app.cards.renderer.activeRenders > 0, 10_000), 'renders started');
    process.kill(browser.pid, 'SIGKILL');
    const results = await Promise.all(requests);

    let images = 0;
    for (const [i, result] of results.entries()) if (await assertOwnImageOrCleanError(i, result)) images++;
    assert.ok(images >= 6, `accepted requests were retried, not lost (${results.map((r) => r.status)})`);

    assert.ok(await eventually(() => processesInGroups([browser.pid]).length === 0, 10_000), 'no process of the killed browser remains');
    assert.notEqual(service.app.cards.renderer.browserPid, browser.pid);
    assert.equal(await metric(service.baseUrl, 'cardwright_browser_restarts_total', { reason: 'crash' }), 1);
    assert.equal((await fetch(`${service.baseUrl}/ready`)).status, 200);
    const next = await Promise.all([20, 21, 22].map((i) => service.generate(distinctBody(i))));
    for (const [i, result] of next.entries()) assert.ok(await assertOwnImageOrCleanError(20 + i, result));
  });

  it('replaces a stopped browser as soon as a request needs it, not at the next health probe', async () => {
    const stopped = service.app.cards.renderer.browserPid!;
    try {
      await stopProcess(stopped);
      assert.equal((await fetch(`${service.baseUrl}/ready`)).status, 503);
      const result = await service.generate(distinctBody(7));
      assert.ok(await assertOwnImageOrCleanError(7, result), 'the request was served by a new browser');
      assert.notEqual(service.app.cards.renderer.browserPid, stopped);
    } finally {
      try {
        process.kill(stopped, 'SIGCONT');
      } catch {
        // already gone, as it should be
      }
    }
    // Killed when the request was handed a page of it: the health probe (every 10 s by default) had no part in it.
    assert.equal(kills.length, 1, kills.join('\n'));
    assert.match(kills[0]!, /the browser process is stopped; killing it/);
    assert.ok(await eventually(() => processesInGroups([stopped]).length === 0, 10_000), 'no process of the stopped browser remains');
    assert.equal(await metric(service.baseUrl, 'cardwright_browser_restarts_total', { reason: 'unresponsive' }), 1);
    assert.equal((await fetch(`${service.baseUrl}/ready`)).status, 200);
  });
});

describe('planned browser restarts', () => {
  let service: RunningService;
  before(async () => {
    service = await startService({ RENDER_CONCURRENCY: '2', QUEUE_MAX: '20', BROWSER_RESTART_AFTER: '3' });
  });
  after(async () => service.close());

  it('replace the browser every few renders without failing a request or leaving processes', async () => {
    // The serving browser, watched all along: a replacement takes over whenever its launch is done,
    // which on a loaded machine may be after the round that asked for it.
    const pids = new Set<number>([service.app.cards.renderer.browserPid!]);
    const watching = setInterval(() => pids.add(service.app.cards.renderer.browserPid!), 20);
    try {
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(Array.from({ length: 5 }, (_, i) => service.generate(distinctBody(round * 5 + i))));
        for (const [i, result] of results.entries()) assert.ok(await assertOwnImageOrCleanError(round * 5 + i, result), 'no request fails');
      }
      const planned = () => metric(service.baseUrl, 'cardwright_browser_restarts_total', { reason: 'planned' });
      assert.ok(await eventually(async () => (await planned()) >= 2 && pids.size >= 3, 15_000), `the browser was replaced twice (pids ${[...pids]}, ${await planned()} planned restarts)`);
    } finally {
      clearInterval(watching);
    }
    assert.equal(await metric(service.baseUrl, 'cardwright_browser_restarts_total', { reason: 'crash' }), 0);
    // A replacement may still be starting after the last round; once it settles, the requests' one
    // browser runs, and no other: nobody opened the web page, so the previews' browser never started.
    assert.ok(await eventually(() => browserChildrenOf(process.pid).length === 1, 15_000), 'one browser runs, for the requests');
    const current = service.app.cards.renderer.browserPid!;
    assert.deepEqual(browserChildrenOf(process.pid).map((browser) => browser.pid), [current]);
    assert.equal(service.app.cards.renderer.previewBrowserPid, undefined);
    const retired = [...pids].filter((pid) => pid !== current);
    assert.ok(await eventually(() => processesInGroups(retired).length === 0, 10_000), 'retired browsers are gone');
  });
});

describe('a browser or a renderer that stops answering', () => {
  let service: RunningService;
  const probeTimeoutMs = 1000;
  const stepTimeoutMs = 3000;
  /** When the service logged that the browser failed its probe. */
  let probeFailedAt: number | undefined;
  before(async () => {
    service = await startService(
      { RENDER_CONCURRENCY: '1', BROWSER_PROBE_INTERVAL_MS: '200', BROWSER_PROBE_TIMEOUT_MS: String(probeTimeoutMs), CARD_RENDER_TIMEOUT_MS: String(stepTimeoutMs) },
      {
        log: (line) => {
          if (line.includes('failed its health probe')) probeFailedAt ??= performance.now();
        },
      },
    );
  });
  after(async () => service.close());

  it('a frozen renderer is a fault of the machine: its page is replaced and the request tried again, not refused as heavy CSS', async () => {
    const browserPid = service.app.cards.renderer.browserPid!;
    // The one render page of the requests (RENDER_CONCURRENCY 1) is open and idle since start; its
    // renderer is the browser's only one. Stopped, it draws nothing: the layout runs over its time.
    const renderers = processesInGroups([browserPid]).filter((process) => process.cmdline.includes('--type=renderer'));
    assert.ok(renderers.length > 0, 'the render page has a renderer process');
    const retriesBefore = await metric(service.baseUrl, 'cardwright_render_retries_total');
    try {
      for (const renderer of renderers) await stopProcess(renderer.pid);
      const sentAt = performance.now();
      const result = await service.generate(distinctBody(4));
      const ms = performance.now() - sentAt;
      assert.equal(result.status, 200, `answered ${result.status} ${JSON.stringify(result.json)}`);
      assert.ok(await assertOwnImageOrCleanError(4, result));
      assert.ok(ms > stepTimeoutMs, `the first try ran to its time limit (answered after ${Math.round(ms)} ms)`);
      assert.equal(await metric(service.baseUrl, 'cardwright_render_retries_total'), retriesBefore + 1);
      // The frozen page was closed, and Chromium ended its stopped renderer; the browser kept serving.
      const stillStopped = () => processesInGroups([browserPid]).filter((process) => process.state === 'T');
      assert.ok(await eventually(() => stillStopped().length === 0, 10_000), `stopped processes remain: ${stillStopped().map((p) => p.pid)}`);
      assert.equal(service.app.cards.renderer.browserPid, browserPid);
      assert.equal((await fetch(`${service.baseUrl}/ready`)).status, 200);
    } finally {
      for (const renderer of renderers) {
        try {
          process.kill(renderer.pid, 'SIGCONT');
        } catch {
          // already gone, as it should be
        }
      }
    }
  });

  it('a stopped browser makes /ready answer 503 at once, and is killed after a failed health probe and replaced', async () => {
    const frozen = service.app.cards.renderer.browserPid!;
    const frozenAt = performance.now();
    try {
      await stopProcess(frozen);
      // No browser can render from the moment it is stopped, not only once its probe gives up on it.
      const ready = await fetch(`${service.baseUrl}/ready`);
      assert.equal(ready.status, 503);
      assert.equal((await ready.json()).browser, 'no browser can render (starting, restarting, or stopped)');
      assert.ok(await eventually(() => service.app.cards.renderer.browserPid !== frozen && service.app.cards.renderer.browserUp, 20_000), 'a new browser took over');
    } finally {
      try {
        process.kill(frozen, 'SIGCONT');
      } catch {
        // already gone, as it should be
      }
    }
    assert.ok(await eventually(() => processesInGroups([frozen]).length === 0, 10_000), 'the frozen browser was killed with its helpers');
    assert.equal(await metric(service.baseUrl, 'cardwright_browser_restarts_total', { reason: 'unresponsive' }), 1);
    // Given up on after BROWSER_PROBE_TIMEOUT_MS (and at most one probe interval), not the default 5 s.
    assert.ok(probeFailedAt !== undefined, 'the failed probe was logged');
    assert.ok(probeFailedAt - frozenAt < probeTimeoutMs + 2000, `the probe failed ${Math.round(probeFailedAt - frozenAt)} ms after the freeze`);
    const next = await service.generate(distinctBody(3));
    assert.ok(await assertOwnImageOrCleanError(3, next));
  });
});

describe('a browser that dies while it starts', () => {
  it('is launched again: the service starts and renders, and says so in its log', async () => {
    // A Chromium that crashes (SIGSEGV) the first time it is started, as one did at start-up on a
    // loaded machine, and starts normally after that.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cardwright-crashing-chromium-'));
    const real = (await findChromium()).path;
    const wrapper = path.join(dir, 'chromium');
    fs.writeFileSync(
      wrapper,
      `#!/bin/sh\nif [ ! -e "${dir}/crashed" ]; then : > "${dir}/crashed"; kill -SEGV $$; fi\nexec "${real}" "$@"\n`,
      { mode: 0o755 },
    );
    const retries: string[] = [];
    const service = await startService(
      { CHROMIUM_PATH: wrapper },
      { log: (line) => void (line.includes('Chromium failed to start') && retries.push(line)) },
    );
    try {
      assert.ok(fs.existsSync(path.join(dir, 'crashed')), 'the first launch crashed');
      assert.equal(retries.length, 1, 'one launch was tried again');
      assert.equal((await service.generate(distinctBody(2))).status, 200);
    } finally {
      await service.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The service of 'the previews' own browser', which 'closing the service' then closes: the first
 * needs it fresh (no previews' browser yet), the second with both browsers running, as the first
 * leaves it. One start instead of two.
 */
let twoBrowsersService: Promise<RunningService> | undefined;
const serviceWithTwoBrowsers = () => {
  twoBrowsersService ??= startService({ RENDER_CONCURRENCY: '1' });
  return twoBrowsersService;
};
let twoBrowsersClosed = false;
after(async () => {
  if (!twoBrowsersClosed) await (await twoBrowsersService?.catch(() => undefined))?.close();
});

describe('the previews\' own browser', () => {
  let service: RunningService;
  before(async () => {
    service = await serviceWithTwoBrowsers();
  });

  it('starts only once the web page is opened: a service used only through the API runs one browser', async () => {
    const renderer = service.app.cards.renderer;
    assert.equal((await service.generate(distinctBody(1))).status, 200);
    // Long past the moment the service is quiet, when spare pages are warmed.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(renderer.previewBrowserPid, undefined, 'no previews\' browser without the web page');
    assert.deepEqual(browserChildrenOf(process.pid).map((browser) => browser.pid), [renderer.browserPid]);

    assert.equal((await fetch(`${service.baseUrl}/`)).status, 200);
    assert.ok(await eventually(() => renderer.previewBrowserPid !== undefined, 20_000), 'the web page opened the previews\' browser');
    assert.notEqual(renderer.previewBrowserPid, renderer.browserPid);
    const preview = await fetch(`${service.baseUrl}/api/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ markdown: '# Typed in the editor', splitMode: 'autoSplit' }),
    });
    assert.equal(preview.status, 200, await preview.clone().text());
    assert.equal(browserChildrenOf(process.pid).length, 2, 'the requests\' browser and the previews\' one');
  });

  it('runs no Chromium thread above the service\'s priority, so none can starve the thread that answers requests', async () => {
    // Run as root here: Chromium would raise its UI, IO and compositor threads to nice -8.
    const renderer = service.app.cards.renderer;
    // Both browsers: the web page opens the previews' one (as the test before this one also does).
    assert.equal((await fetch(`${service.baseUrl}/`)).status, 200);
    assert.ok(await eventually(() => renderer.previewBrowserPid !== undefined && renderer.browserPid !== undefined, 20_000), 'both browsers started');
    const ownNice = os.getPriority();
    for (const browser of [renderer.browserPid!, renderer.previewBrowserPid!]) {
      const threads = threadNiceValues(browser);
      assert.ok(threads.length > 20, `found the threads of browser ${browser}`);
      const above = threads.filter((thread) => thread.nice < ownNice);
      assert.deepEqual(above, [], `threads of browser ${browser} above the service's nice ${ownNice}`);
    }
  });
});

describe('closing the service', () => {
  it('leaves no Chromium process behind', async () => {
    const service = await serviceWithTwoBrowsers();
    const pid = service.app.cards.renderer.browserPid!;
    assert.equal((await service.generate(distinctBody(1))).status, 200);
    // The web page opened: the previews' browser starts too, and must go with the service.
    assert.equal((await fetch(`${service.baseUrl}/`)).status, 200);
    assert.ok(await eventually(() => service.app.cards.renderer.previewBrowserPid !== undefined, 20_000), 'the previews\' browser started');
    const previewsPid = service.app.cards.renderer.previewBrowserPid!;
    twoBrowsersClosed = true;
    await service.close();
    assert.ok(await eventually(() => processesInGroups([pid, previewsPid]).length === 0, 5_000));
    assert.equal(browserChildrenOf(process.pid).length, 0);
  });
});

describe('a page being opened when its browser dies', () => {
  const log = pino({ level: 'silent' });

  it('fails at once, however long Playwright would leave the step unsettled', async () => {
    const instance = await BrowserInstance.launch(undefined, 1, log);
    try {
      const never = new Promise<never>(() => {});
      const step = instance.whileConnected(never, 60_000, 'too slow', () => {});
      instance.kill();
      const started = performance.now();
      await assert.rejects(step, /the browser is gone/);
      assert.ok(performance.now() - started < 3000, 'it failed when the browser died');
    } finally {
      await instance.close();
    }
  });

  it('fails after its time bound while the browser lives, and closes what comes too late', async () => {
    const instance = await BrowserInstance.launch(undefined, 1, log);
    try {
      await assert.rejects(instance.whileConnected(new Promise<never>(() => {}), 200, 'too slow', () => {}), /too slow/);
      const closedLate: string[] = [];
      const late = new Promise<string>((resolve) => setTimeout(resolve, 400, 'a page'));
      await assert.rejects(instance.whileConnected(late, 100, 'too slow', (value) => closedLate.push(value)), /too slow/);
      await late;
      assert.deepEqual(closedLate, ['a page']);
    } finally {
      await instance.close();
    }
  });

  it('never leaves the opening of a page unsettled, whenever the browser freezes and is killed', async () => {
    // A browser frozen while a page opens, then killed by its health probe: an opening left
    // unsettled for ever when the freeze came in the middle of it would leave the preview waiting
    // for that page with a 504 at its deadline instead of a page on the new browser.
    const fleet = new BrowserFleet({ shell: { html: '', fonts: shellFonts('') }, log, onPagesChanged: () => {} });
    try {
      for (const freezeAfterMs of [5, 50, 100, 200, 400]) {
        const opening = fleet.openWith(async (browser) => {
          const pid = fleet.browserPid!;
          const opened = BrowserPage.open(browser, { javaScriptEnabled: false, viewport: { width: 400, height: 300 }, route: (request) => request.abort() });
          setTimeout(() => process.kill(-pid, 'SIGSTOP'), freezeAfterMs);
          setTimeout(() => process.kill(-pid, 'SIGKILL'), freezeAfterMs + 500);
          const page = await opened;
          return { clear: async () => {}, close: () => page.close() };
        });
        const outcome = await Promise.race([
          opening.then(() => 'opened', () => 'failed'),
          new Promise((resolve) => setTimeout(resolve, freezeAfterMs + 8000, 'unsettled 8 s after its browser was killed')),
        ]);
        assert.notEqual(outcome, 'unsettled 8 s after its browser was killed', `frozen ${freezeAfterMs} ms into newPage()`);
        // The next opening gets the replacement browser.
        await eventually(() => fleet.browserUp, 10_000);
      }
    } finally {
      await fleet.close();
    }
  });
});

describe('a browser launched before the service is built', () => {
  it('is the first browser the fleet serves with, and what its launch logged is written to the service log', async () => {
    const before = new Set(browserChildrenOf(process.pid).map((p) => p.pid));
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const early = new EarlyBrowser(undefined);
    // Launched at once, before any fleet asks for it.
    assert.ok(await eventually(() => browserChildrenOf(process.pid).some((p) => !before.has(p.pid)), 60_000), 'launched');
    const fleet = new BrowserFleet({ shell: { html: '', fonts: shellFonts('') }, log, firstBrowser: early, onPagesChanged: () => {} });
    let launchedEarly: number[] = [];
    try {
      const page = await fleet.openWith(async () => ({ clear: async () => {}, close: async () => {} }));
      launchedEarly = browserChildrenOf(process.pid).filter((p) => !before.has(p.pid)).map((p) => p.pid);
      assert.deepEqual(launchedEarly, [fleet.browserPid], 'the fleet launched no browser of its own');
      assert.deepEqual(
        lines.filter((line) => line.msg === 'browser launched').map((line) => [line.browserPid, line.generation]),
        [[fleet.browserPid, 1]],
      );
      await page.close();
    } finally {
      await fleet.close();
    }
    assert.deepEqual(processesInGroups(launchedEarly), []);
  });

  it('is closed, leaving no process, when the service stops before any fleet took it', async () => {
    const before = new Set(browserChildrenOf(process.pid).map((p) => p.pid));
    const early = new EarlyBrowser(undefined);
    assert.ok(await eventually(() => browserChildrenOf(process.pid).some((p) => !before.has(p.pid)), 60_000), 'launched');
    const launched = browserChildrenOf(process.pid).filter((p) => !before.has(p.pid));
    await early.close();
    assert.deepEqual(processesInGroups(launched.map((p) => p.pid)), []);
  });
});
