// Custom themes from THEMES_DIR: written like built-in ones, selected by class name, listed with
// their modes, checked at start-up. A broken file is reported and skipped; the service still runs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { countNear, decodePng, download, pixel } from './helpers/images.js';
import { startService, temporaryDir, type RunningService } from './helpers/service.js';

const sunsetTheme = `/*
 * @class my-sunset
 * @name  My Sunset
 * @modes dusk-mode dawn-mode
 */
.my-sunset { background: #1d2b53; color: #fff1e8; padding: 24px; }
.my-sunset.dawn-mode { background: #ffcc00; color: #1d2b53; }
.my-sunset .card-content-inner h1 { color: #ff77a8; }
/* Not scoped to the theme's class: must still only reach this theme's cards. */
.card-content-inner p { color: #00ee00; }
`;

describe('custom themes', () => {
  let service: RunningService;
  let themesDir: string;
  const logLines: string[] = [];

  before(async () => {
    themesDir = temporaryDir('cardwright-themes-');
    fs.writeFileSync(path.join(themesDir, 'sunset.css'), sunsetTheme);
    fs.writeFileSync(path.join(themesDir, 'no-header.css'), '.oops { color: red; }\n');
    fs.writeFileSync(path.join(themesDir, 'clash.css'), '/*\n * @id plain-notes\n * @name Impostor\n */\n.card-plain-notes { background: red; }\n');
    fs.writeFileSync(path.join(themesDir, 'bad-mode.css'), '/*\n * @class nice-class\n * @modes ok-mode bad.mode\n */\n');
    fs.writeFileSync(path.join(themesDir, '_shared.css'), '/* a partial, not a theme */\n');
    service = await startService({ THEMES_DIR: themesDir }, { log: (line) => logLines.push(line) });
  });
  after(async () => {
    await service.close();
    fs.rmSync(themesDir, { recursive: true, force: true });
  });

  it('lists a custom theme with its class, name, modes and default mode', async () => {
    const { themes } = (await (await fetch(`${service.baseUrl}/api/themes`)).json()) as { themes: any[] };
    const custom = themes.filter((theme) => theme.custom);
    assert.deepEqual(custom, [
      { id: 'my-sunset', className: 'my-sunset', name: 'My Sunset', modes: ['dusk-mode', 'dawn-mode'], defaultMode: 'dusk-mode', custom: true },
    ]);
    assert.ok(themes.some((theme) => theme.id === 'plain-notes' && !theme.custom), 'built-in themes are still listed');
  });

  it('renders a custom theme selected by its class name, in each of its modes', async () => {
    const markdown = '# Custom 自定义 ✨\n\nHello from THEMES_DIR.';
    const dusk = await service.generate({ markdown, theme: 'my-sunset', scale: 1 });
    assert.equal(dusk.status, 200, JSON.stringify(dusk.json));
    const duskPng = await decodePng((await download(dusk.json.images[0].url)).bytes);
    assert.deepEqual(pixel(duskPng, 4, 4), [0x1d, 0x2b, 0x53], 'default mode: dusk background');
    assert.ok(countNear(duskPng, [0xff, 0x77, 0xa8], 30) > 50, 'the theme colours its heading');

    const dawn = await service.generate({ markdown, theme: 'my-sunset', themeMode: 'dawn-mode', scale: 1 });
    assert.equal(dawn.status, 200);
    const dawnPng = await decodePng((await download(dawn.json.images[0].url)).bytes);
    assert.deepEqual(pixel(dawnPng, 4, 4), [0xff, 0xcc, 0x00], 'dawn-mode background');
  });

  it('keeps a custom theme\'s unscoped rules inside its own cards', async () => {
    const markdown = 'A paragraph in green? 绿色？';
    const own = await service.generate({ markdown, theme: 'my-sunset', scale: 1 });
    const ownPng = await decodePng((await download(own.json.images[0].url)).bytes);
    assert.ok(countNear(ownPng, [0x00, 0xee, 0x00], 40) > 50, 'the rule applies in the custom theme');
    for (const theme of ['plain-notes', 'minimalist']) {
      const other = await service.generate({ markdown, theme, scale: 1 });
      const png = await decodePng((await download(other.json.images[0].url)).bytes);
      assert.equal(countNear(png, [0x00, 0xee, 0x00], 40), 0, `${theme} is untouched`);
    }
  });

  it('treats a mode a custom theme does not have like a built-in one: its default mode, with a warning', async () => {
    const { status, json } = await service.generate({ theme: 'my-sunset', themeMode: 'noon-mode', scale: 1 });
    assert.equal(status, 200);
    assert.match(json.warnings[0], /"noon-mode".*default mode "dusk-mode".*dusk-mode, dawn-mode/);
  });

  it('reports every broken file at start-up, names what to fix, and skips it', async () => {
    const problems = service.app.cards.themes.problems.map((problem) => [path.basename(problem.file), problem.message]);
    assert.equal(problems.length, 3, JSON.stringify(problems));
    const messageOf = (file: string) => problems.find(([name]) => name === file)?.[1] ?? '';
    assert.match(messageOf('no-header.css'), /must start with a comment declaring @id or @class/);
    assert.match(messageOf('clash.css'), /clashes with theme "plain-notes"/);
    assert.match(messageOf('bad-mode.css'), /mode "bad\.mode"/);

    const reported = logLines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => /custom theme skipped/.test(entry.msg));
    assert.equal(reported.length, 3, 'each broken file is logged');
    assert.ok(reported.every((entry) => entry.level >= 50), 'at error level');
    assert.ok(reported.some((entry) => entry.msg.includes('no-header.css')), 'the log names the file');

    const impostor = await service.generate({ theme: 'plain-notes', scale: 1 });
    assert.equal(impostor.status, 200);
    const png = await decodePng((await download(impostor.json.images[0].url)).bytes);
    assert.deepEqual(pixel(png, 4, 4), [255, 255, 255], 'the clashing file did not restyle plain-notes');
    assert.equal((await service.generate({ theme: 'nice-class' })).status, 400, 'a skipped theme cannot be selected');
  });

  it('starts without custom themes when THEMES_DIR does not exist, and says so', async () => {
    const lines: string[] = [];
    const other = await startService({ THEMES_DIR: path.join(themesDir, 'missing') }, { log: (line) => lines.push(line) });
    try {
      assert.equal((await other.generate({ theme: 'plain-notes', scale: 1 })).status, 200);
      assert.ok(lines.some((line) => /THEMES_DIR cannot be read/.test(line)), 'the log says THEMES_DIR cannot be read');
    } finally {
      await other.close();
    }
  });
});
