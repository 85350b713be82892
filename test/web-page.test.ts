// The web page end to end: the real service on loopback, the page in real Chromium (the binary the
// service renders with), driven the way a visitor uses it: typing, clicking, keyboard.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, type WatchedPage } from './helpers/browser.js';
import { decodePng, download, isPng } from './helpers/images.js';
import { startImageServer, type LocalImageServer } from './helpers/local-image-server.js';
import { startService, temporaryDir, testApiKey, type RunningService } from './helpers/service.js';

/** A custom theme from THEMES_DIR: the page must list it with its class name and modes. */
const customThemeCss = `/*
 * @class  acme-brand
 * @name   Acme Brand
 * @modes  sunny-mode night-mode
 */
.acme-brand { padding: 24px; background: rgb(255, 236, 179); color: rgb(60, 40, 0); }
.acme-brand.night-mode { background: rgb(12, 20, 48); color: rgb(230, 236, 255); }
`;

interface PreviewCard {
  className: string;
  width: number;
  height: number;
  text: string;
  background: string;
}

/** The cards shown in the preview frame, read from the page (the frame itself runs no script). */
function previewCards(page: Page): Promise<PreviewCard[]> {
  return page.evaluate(() => {
    const frame = document.getElementById('preview-frame') as HTMLIFrameElement;
    const cards = frame.contentDocument?.getElementById('cards')?.children ?? [];
    return Array.from(cards, (card) => {
      const box = card.getBoundingClientRect();
      return {
        className: card.className,
        width: box.width,
        height: box.height,
        text: (card as HTMLElement).innerText,
        background: frame.contentWindow!.getComputedStyle(card).backgroundColor,
      };
    });
  });
}

/** What the first preview card must show; every given property must hold. */
interface CardExpectation {
  classes?: string[];
  notClasses?: string[];
  texts?: string[];
  width?: number;
  height?: number;
  /** Number of cards shown. */
  count?: number;
  /** Tag of the first card: DIV for live markup, IMG for a card the renderer captured. */
  tag?: string;
}

/** Waits until the preview's first card meets `expected` (the page updates it asynchronously). */
async function waitForPreview(page: Page, expected: CardExpectation = {}): Promise<void> {
  await page.waitForFunction(
    (want) => {
      const frame = document.getElementById('preview-frame') as HTMLIFrameElement;
      const cards = frame.contentDocument?.getElementById('cards')?.children;
      const card = cards?.[0] as HTMLElement | undefined;
      if (!card) return false;
      const box = card.getBoundingClientRect();
      return (
        (want.classes ?? []).every((name) => card.classList.contains(name)) &&
        (want.notClasses ?? []).every((name) => !card.classList.contains(name)) &&
        (want.texts ?? []).every((text) => card.innerText.includes(text)) &&
        (want.width === undefined || Math.round(box.width) === want.width) &&
        (want.height === undefined || Math.round(box.height) === want.height) &&
        (want.count === undefined || cards!.length === want.count) &&
        (want.tag === undefined || card.tagName === want.tag)
      );
    },
    expected,
    { timeout: 10_000 },
  );
}

const curlText = (page: Page) => page.locator('#curl').innerText();

describe('web page', () => {
  let service: RunningService;
  let browser: Browser;
  let themesDir: string;
  let images: LocalImageServer;

  before(async () => {
    themesDir = temporaryDir('cardwright-web-themes-');
    fs.writeFileSync(path.join(themesDir, 'acme-brand.css'), customThemeCss);
    images = await startImageServer();
    service = await startService({ THEMES_DIR: themesDir, REMOTE_IMAGES_ALLOWLIST: `127.0.0.1:${images.port}` });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await images?.close();
    fs.rmSync(themesDir, { recursive: true, force: true });
  });

  async function open(viewport?: { width: number; height: number }): Promise<WatchedPage> {
    const watched = await openPage(browser, `${service.baseUrl}/`, viewport);
    await waitForPreview(watched.page);
    return watched;
  }

  it('loads without console errors, shows the sample card and requests nothing outside the service', async () => {
    const { page, problems, requests, close } = await open();
    try {
      // Every theme's thumbnail loads, so the gallery is complete.
      await page.waitForFunction(() => {
        const thumbs = Array.from(document.querySelectorAll<HTMLImageElement>('#theme-list img.thumb'));
        return thumbs.length > 0 && thumbs.every((img) => img.complete && img.naturalWidth > 0);
      });
      const [card] = await previewCards(page);
      assert.match(card!.className, /\bcard\b.*\bcard-plain-notes\b.*\blight-mode\b/);
      assert.equal(card!.width, 440);
      assert.ok(card!.height >= 586);
      assert.match(card!.text, /写下来/);
      assert.deepEqual(problems, []);
      const outside = requests.filter((url) => !url.startsWith(`${service.baseUrl}/`) && !url.startsWith('data:'));
      assert.deepEqual(outside, []);
    } finally {
      await close();
    }
  });

  it('updates the preview as the visitor types', async () => {
    const { page, problems, close } = await open();
    try {
      await page.locator('#markdown').fill('');
      await page.locator('#markdown').pressSequentially('# Typed live\n\nHello **there**', { delay: 5 });
      await waitForPreview(page, { texts: ['Typed live', 'Hello there'] });
      const [card] = await previewCards(page);
      assert.doesNotMatch(card!.text, /写下来/);
      // The heading is the pipeline's own output: data-text as the card DOM contract promises.
      const heading = await page.evaluate(() => {
        const frame = document.getElementById('preview-frame') as HTMLIFrameElement;
        return frame.contentDocument!.querySelector('.card-content-inner h1')?.getAttribute('data-text');
      });
      assert.equal(heading, 'Typed live');
      const timings = await page.evaluate(() => (window as unknown as { cardwrightPreviewTimings: number[] }).cardwrightPreviewTimings);
      assert.ok(timings.length >= 2, 'every preview update is measured');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('shows a remote image in the preview, drawn from the service, as Generate will', async () => {
    const { page, problems, requests, close } = await open();
    try {
      await page.locator('#markdown').fill(`# With a picture\n\n![red](${images.origin}/red.png)`);
      const drawn = await page.waitForFunction(() => {
        const frame = document.getElementById('preview-frame') as HTMLIFrameElement;
        const img = frame.contentDocument?.querySelector<HTMLImageElement>('.card-content-inner img[alt="red"]');
        return img?.complete && img.naturalWidth > 0 ? { width: img.naturalWidth, height: img.naturalHeight } : false;
      }, undefined, { timeout: 10_000 });
      assert.deepEqual(await drawn.jsonValue(), { width: 200, height: 100 });
      // The browser asked the image's host for nothing: the service fetched it.
      assert.deepEqual(requests.filter((url) => url.startsWith(images.origin)), []);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('lists every theme of GET /api/themes with its name, ID and mode IDs, custom themes included', async () => {
    const { page, close } = await open();
    try {
      const listed = (await (await fetch(`${service.baseUrl}/api/themes`)).json()) as {
        themes: { id: string; className: string; name: string; modes: string[]; custom: boolean }[];
      };
      assert.ok(listed.themes.some((theme) => theme.custom && theme.className === 'acme-brand'));
      for (const theme of listed.themes) {
        const option = page.locator(`[data-theme-option="${theme.id}"]`);
        const text = await option.innerText();
        assert.ok(text.includes(theme.name), `${theme.id} shows its name`);
        assert.ok(text.includes(theme.custom ? theme.className : theme.id), `${theme.id} shows its ID`);
        for (const mode of theme.modes) assert.ok(text.includes(mode), `${theme.id} shows mode ${mode}`);
      }
    } finally {
      await close();
    }
  });

  it('changes the preview and the cURL command when a theme and a mode are chosen', async () => {
    const { page, problems, close } = await open();
    try {
      assert.match(await curlText(page), /"theme": "plain-notes"/);
      await page.locator('[data-theme-option="acme-brand"]').click();
      await waitForPreview(page, { classes: ['acme-brand', 'sunny-mode'] });
      assert.equal((await previewCards(page))[0]!.background, 'rgb(255, 236, 179)');
      assert.match(await curlText(page), /"theme": "acme-brand"/);
      assert.match(await curlText(page), /"themeMode": "sunny-mode"/);

      // The mode radios of the chosen theme, used with the keyboard.
      await page.locator('#mode-list input[value="sunny-mode"]').focus();
      await page.keyboard.press('ArrowRight');
      await waitForPreview(page, { classes: ['night-mode'] });
      assert.equal((await previewCards(page))[0]!.background, 'rgb(12, 20, 48)');
      assert.match(await curlText(page), /"themeMode": "night-mode"/);
      assert.doesNotMatch(await curlText(page), /sunny-mode/);

      // Copy JSON body puts exactly the request on the clipboard.
      await page.locator('#copy-json').click();
      const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
      assert.equal(copied.theme, 'acme-brand');
      assert.equal(copied.themeMode, 'night-mode');
      assert.equal(typeof copied.markdown, 'string');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('shows every card of autoSplit and hrSplit, as the renderer cuts them', async () => {
    const { page, problems, close } = await open();
    try {
      await page.locator('#markdown').fill('# One\n\nFirst section.\n\n---\n\n# Two\n\nSecond.\n\n---\n\n# Three\n\nThird.');
      await page.locator('input[name="splitMode"][value="hrSplit"]').check();
      await waitForPreview(page, { count: 3, tag: 'IMG', width: 440, height: 586 });
      assert.match(await page.locator('#preview-status').innerText(), /^3 cards/);
      assert.match(await curlText(page), /"splitMode": "hrSplit"/);

      await page.locator('[data-preset="1:1"]').click();
      await page.locator('#markdown').fill(Array.from({ length: 30 }, (_, i) => `Paragraph ${i + 1} of a long text that needs several cards.`).join('\n\n'));
      await page.locator('input[name="splitMode"][value="autoSplit"]').check();
      await waitForPreview(page, { tag: 'IMG', width: 500, height: 500 });
      // The cards' images come by address (GET /api/preview/images/:id): read once they have loaded.
      await page.waitForFunction(() => {
        const frame = document.getElementById('preview-frame') as HTMLIFrameElement;
        return Array.from(frame.contentDocument!.querySelectorAll<HTMLImageElement>('#cards > img')).every((img) => img.complete);
      });
      const sizes = await page.evaluate(() => {
        const frame = document.getElementById('preview-frame') as HTMLIFrameElement;
        return Array.from(frame.contentDocument!.querySelectorAll('#cards > img'), (img) => {
          const image = img as HTMLImageElement;
          return [image.width, image.height, image.naturalWidth];
        });
      });
      assert.ok(sizes.length >= 2, `${sizes.length} cards`);
      // Drawn at card size from an image captured at 2× for sharp screens.
      for (const size of sizes) assert.deepEqual(size, [500, 500, 1000]);

      await page.locator('input[name="splitMode"][value="noSplit"]').check();
      await waitForPreview(page, { count: 1, tag: 'DIV', width: 500 });
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('applies the size presets and free width and height to the preview and the request', async () => {
    const { page, close } = await open();
    try {
      const presets: [string, number, number][] = [['9:16', 440, 782], ['1:1', 500, 500], ['A4', 595, 842], ['3:5', 440, 733], ['3:4', 440, 586]];
      // Clipping makes the card exactly the chosen height, whatever the content.
      await page.locator('label.switch', { hasText: 'Clip overflow' }).click();
      for (const [preset, width, height] of presets) {
        await page.locator(`[data-preset="${preset}"]`).click();
        assert.equal(await page.locator('#width').inputValue(), String(width));
        assert.equal(await page.locator('#height').inputValue(), String(height));
        await waitForPreview(page, { width, height });
        assert.match(await curlText(page), new RegExp(`"width": ${width},\\s*"height": ${height}`));
      }
      await page.locator('#width').fill('620');
      await waitForPreview(page, { width: 620 });
      assert.equal(await page.locator('input[name="size-preset"]:checked').count(), 0, 'no preset matches a free size');
      assert.match(await curlText(page), /"overHiddenMode": true/);
    } finally {
      await close();
    }
  });

  it('shows an out-of-range value as an error next to its control, in words', async () => {
    const { page, close } = await open();
    try {
      await page.locator('#width').fill('5000');
      const error = page.locator('#size-error');
      await error.waitFor({ state: 'visible' });
      assert.match(await error.innerText(), /width is not accepted: got number 5000; accepted: .*100–2000/);
      assert.equal(await page.locator('#width').getAttribute('aria-invalid'), 'true');
      await page.locator('#width').fill('480');
      await error.waitFor({ state: 'hidden' });
      await waitForPreview(page, { width: 480 });
    } finally {
      await close();
    }
  });

  it('generates images with a valid key: they load, and each has a download link', async () => {
    const { page, problems, requests, close } = await open();
    try {
      await page.locator('#api-key').fill(testApiKey);
      await page.locator('#markdown').fill('# Generated from the page\n\nHello.');
      await page.locator('#generate').click();
      const images = page.locator('#results img');
      await images.first().waitFor({ state: 'visible', timeout: 30_000 });
      await page.waitForFunction(() => Array.from(document.querySelectorAll<HTMLImageElement>('#results img')).every((img) => img.complete && img.naturalWidth > 0));
      const results = await page.evaluate(() =>
        Array.from(document.querySelectorAll('#results .result'), (item) => ({
          src: item.querySelector('img')!.src,
          naturalWidth: item.querySelector('img')!.naturalWidth,
          download: item.querySelector<HTMLAnchorElement>('a[download]')!.href,
        })),
      );
      assert.equal(results.length, 1);
      assert.equal(results[0]!.naturalWidth, 880);
      assert.equal(results[0]!.download, results[0]!.src);
      const { bytes, response } = await download(results[0]!.src);
      assert.equal(response.status, 200);
      assert.ok(isPng(bytes));
      assert.equal((await decodePng(bytes)).height, 1172);

      // The key is kept in this browser and sent only to the generate endpoint of this service.
      assert.equal(await page.evaluate(() => localStorage.getItem('cardwright.apiKey')), testApiKey);
      await page.reload();
      assert.equal(await page.locator('#api-key').inputValue(), testApiKey);
      assert.ok(requests.every((url) => url.startsWith(`${service.baseUrl}/`) || url.startsWith('data:')));
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('downloads each image, the ZIP and the PDF when the page is opened at another host name than PUBLIC_BASE_URL', async () => {
    // The images' URLs say http://127.0.0.1:<port> (PUBLIC_BASE_URL); the page is at http://localhost:<port>.
    const pageOrigin = service.baseUrl.replace('127.0.0.1', 'localhost');
    const { page, problems, close } = await openPage(browser, `${pageOrigin}/`);
    try {
      await page.fill('#markdown', '# One\n\ntext\n\n---\n\n# Two\n\ntext');
      await page.check('input[name="splitMode"][value="hrSplit"]');
      await page.fill('#api-key', testApiKey);
      await page.click('#generate');
      await page.waitForFunction(() => document.querySelectorAll('#results .result').length === 2);
      const links = await page.locator('#results a[download]').evaluateAll((anchors) => anchors.map((anchor) => (anchor as HTMLAnchorElement).href));
      assert.ok(links.every((link) => link.startsWith(`${service.baseUrl}/screenshots/`)), `the images are at the other origin: ${links.join(', ')}`);

      const [single] = await Promise.all([page.waitForEvent('download'), page.locator('#results a[download]').first().click()]);
      assert.equal(single.suggestedFilename(), links[0]!.split('/').pop());
      assert.ok(isPng(fs.readFileSync((await single.path())!)));
      assert.equal(page.url(), `${pageOrigin}/`, 'the page stays where it is');

      const [zip] = await Promise.all([page.waitForEvent('download'), page.click('#download-zip')]);
      assert.equal(zip.suggestedFilename(), 'cards.zip');
      const files = unzipSync(new Uint8Array(fs.readFileSync((await zip.path())!)));
      assert.deepEqual(Object.keys(files).sort(), ['card-01.png', 'card-02.png']);
      for (const bytes of Object.values(files)) assert.ok(isPng(Buffer.from(bytes)));

      const [pdf] = await Promise.all([page.waitForEvent('download'), page.click('#download-pdf')]);
      assert.equal(pdf.suggestedFilename(), 'cards.pdf');
      assert.equal(fs.readFileSync((await pdf.path())!).subarray(0, 5).toString('latin1'), '%PDF-');
      assert.equal(await page.locator('#download-status').innerText(), '');
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('shows a wrong key as an error next to the key field', async () => {
    const { page, close } = await open();
    try {
      await page.locator('#api-key').fill('not-a-valid-key-0000');
      await page.locator('#generate').click();
      const error = page.locator('#api-key-error');
      await error.waitFor({ state: 'visible' });
      assert.match(await error.innerText(), /Send a valid API key in the x-api-key header/);
      assert.equal(await page.locator('#api-key').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('#results img').count(), 0);
    } finally {
      await close();
    }
  });

  it('works with the keyboard alone: skip link, theme radios with arrow keys, Generate with Enter', async () => {
    const { page, close } = await open();
    try {
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.className), 'skip-link');
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'markdown');

      await page.locator('#theme-list input:checked').focus();
      const before = await page.evaluate(() => document.querySelector<HTMLInputElement>('#theme-list input:checked')!.value);
      await page.keyboard.press('ArrowDown');
      const after = await page.evaluate(() => document.querySelector<HTMLInputElement>('#theme-list input:checked')!.value);
      assert.notEqual(after, before, 'the arrow key moves to the next theme');
      await waitForPreview(page, { notClasses: ['card-plain-notes'] });

      await page.locator('#generate').focus();
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
      assert.notEqual(outline, 'none', 'keyboard focus is visible');
      await page.keyboard.press('Enter');
      await page.locator('#api-key-error').waitFor({ state: 'visible' });
      assert.match(await page.locator('#api-key-error').innerText(), /Enter your API key/);
    } finally {
      await close();
    }
  });

  it('fits a phone screen without sideways scrolling', async () => {
    const { page, problems, close } = await open({ width: 390, height: 844 });
    try {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
      const frameBox = await page.locator('#preview-frame').boundingBox();
      assert.ok(frameBox && frameBox.width <= 390 && frameBox.width > 250, `the preview is scaled to the screen (${frameBox?.width} px)`);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
});
