// The `cardwright` command, run as a user runs it: the package's bin, real files in and out,
// standard input, exit codes and messages, real Chromium.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, cliBin, runCli, type CliResult } from './helpers/cli.js';
import { decodePng, differingFraction, distinctColours, download, isJpeg, isPng } from './helpers/images.js';
import { postJson } from './helpers/post-json.js';
import { freePort, temporaryDir } from './helpers/service.js';
import { hashedKeyEntry } from '../src/http/api-keys.js';

const notes = '# Weekly notes 周记 🚀\n\nSome **bold** text and a list:\n\n- first\n- second\n';

/** The service that `cardwright serve` runs for this file, and the keys it reads. */
interface Served {
  baseUrl: string;
  dataDir: string;
  /** The two `cardwright keys create` runs that saved keys in its data folder before it started. */
  keysCreated: CliResult[];
  /** A key it accepts (the first one created). */
  key: string;
  generate(body: unknown, headers?: Record<string, string>): ReturnType<typeof postJson>;
  stderr(): string;
  /** True while the process runs. */
  running(): boolean;
  /** Sends SIGTERM and answers the exit code. */
  stop(): Promise<number | null>;
}

let served: Promise<Served> | undefined;

/**
 * One `cardwright serve` for the whole file, started when a test first needs a service: starting
 * a service costs some 8 s of CPU, and the tests that need one (the keys it reads, the API's cards
 * beside the CLI's, --remote, serve itself) need nothing of it but its default settings and a key.
 * Its data folder holds two keys that `cardwright keys create` saved before it started. The serve
 * test, last in this file, stops it.
 */
function servedService(): Promise<Served> {
  served ??= startServed();
  return served;
}

after(async () => {
  const service = await served?.catch(() => undefined);
  if (service?.running()) await service.stop();
  if (service) fs.rmSync(service.dataDir, { recursive: true, force: true });
});

async function startServed(): Promise<Served> {
  const dataDir = temporaryDir();
  const keysCreated = [await runCli(['keys', 'create'], { env: { DATA_DIR: dataDir } }), await runCli(['keys', 'create'], { env: { DATA_DIR: dataDir } })];
  const key = keysCreated[0]!.stdout.trim();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [cliBin, 'serve', '--port', String(port), '--host', '127.0.0.1'], {
    // No API_KEYS (cleanEnv drops it): the service reads the keys saved in DATA_DIR. One Markdown
    // worker, as startService gives the in-process services: each loads the whole pipeline.
    env: { ...cleanEnv(), DATA_DIR: dataDir, PUBLIC_BASE_URL: baseUrl, LOG_LEVEL: 'warn', MARKDOWN_THREADS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let running = true;
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      running = false;
      resolve(code);
    }),
  );
  // Start-up launches Chromium: allow a minute on a busy machine.
  let themes: Response | undefined;
  for (let attempt = 0; attempt < 600 && !themes && running; attempt++) {
    themes = await fetch(`${baseUrl}/api/themes`).catch(() => undefined);
    if (!themes) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!themes) {
    child.kill('SIGKILL');
    throw new Error(`cardwright serve did not answer within 60 s; it wrote: ${stderr}`);
  }
  return {
    baseUrl,
    dataDir,
    keysCreated,
    key,
    generate: (body, headers = {}) => postJson(baseUrl, '/api/generate', body, { 'x-api-key': key, ...headers }),
    stderr: () => stderr,
    running: () => running,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('cardwright render', () => {
  let dir: string;
  before(() => {
    dir = temporaryDir('cardwright-cli-');
    fs.writeFileSync(path.join(dir, 'notes.md'), notes);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('documents every option in --help', async () => {
    const { code, stdout } = await runCli(['render', '--help']);
    assert.equal(code, 0);
    for (const option of ['--out', '--name', '--theme', '--mode', '--split', '--width', '--height', '--format', '--scale', '--mdx', '--over-hidden', '--watermark', '--json', '--remote', '--help']) {
      assert.ok(stdout.includes(option), `--help mentions ${option}`);
    }
    assert.match(stdout, /noSplit, autoSplit, hrSplit/);
    assert.match(stdout, /100–2000/);
    const main = await runCli(['--help']);
    assert.equal(main.code, 0);
    for (const command of ['render', 'themes', 'serve', 'keys create', 'mcp']) assert.ok(main.stdout.includes(command), command);
  });

  it('renders a file into numbered images in the output folder and prints their paths', async () => {
    const { code, stdout, stderr } = await runCli(['render', 'notes.md', '-o', 'out/', '--theme', 'plain-notes', '--mode', 'light-mode'], { cwd: dir });
    assert.equal(code, 0, stderr);
    assert.equal(stdout, `${path.join('out', 'notes-1.png')}\n`);
    const bytes = fs.readFileSync(path.join(dir, 'out', 'notes-1.png'));
    assert.ok(isPng(bytes));
    const png = await decodePng(bytes);
    assert.deepEqual([png.width, png.height], [880, 1172]);
    assert.ok(distinctColours(png) > 50, 'the card shows text, not a blank page');
    assert.equal(stderr, '');
  });

  it('splits long content into numbered cards, the same cards the API makes', async () => {
    const long = Array.from({ length: 24 }, (_, i) => `## Section ${i + 1}\n\nA paragraph of text that fills the card, 第${i + 1}段中文内容。`).join('\n\n');
    fs.writeFileSync(path.join(dir, 'long.md'), long);
    const args = ['--theme', 'pop-art', '--mode', 'mint-mode', '--split', 'autoSplit', '--width', '440', '--height', '586', '--format', 'png', '--scale', '2'];
    const { code, stdout, stderr } = await runCli(['render', 'long.md', '-o', 'split/', ...args], { cwd: dir });
    assert.equal(code, 0, stderr);
    const files = stdout.trim().split('\n');
    assert.ok(files.length >= 3, `${files.length} cards`);
    assert.deepEqual(files, files.map((_, i) => path.join('split', `long-${i + 1}.png`)));

    const service = await servedService();
    const { status, json } = await service.generate({ markdown: long, theme: 'pop-art', themeMode: 'mint-mode', splitMode: 'autoSplit', width: 440, height: 586, format: 'png', scale: 2 });
    assert.equal(status, 200);
    assert.equal(json.images.length, files.length, 'as many cards as the API makes');
    for (const [index, image] of json.images.entries()) {
      const fromCli = await decodePng(fs.readFileSync(path.join(dir, files[index]!)));
      const fromApi = await decodePng((await download(image.url)).bytes);
      assert.deepEqual([fromCli.width, fromCli.height], [880, 1172]);
      assert.equal(differingFraction(fromCli, fromApi), 0, `card ${index + 1} is the API's card`);
    }
  });

  it('renders several files with --remote as one job of a service, each under its own name', async () => {
    fs.writeFileSync(path.join(dir, 'first.md'), '# First remote');
    fs.writeFileSync(path.join(dir, 'second.md'), '# Second remote\n\n---\n\n# Its second card');
    const noService = await runCli(['render', 'first.md', 'second.md', '--remote'], { cwd: dir });
    assert.equal(noService.code, 2);
    assert.match(noService.stderr, /CARDWRIGHT_URL and CARDWRIGHT_API_KEY/);
    const several = await runCli(['render', 'first.md', 'second.md'], { cwd: dir });
    assert.equal(several.code, 2);
    assert.match(several.stderr, /several with --remote/);

    const service = await servedService();
    const env = { CARDWRIGHT_URL: service.baseUrl, CARDWRIGHT_API_KEY: service.key };
    const args = ['render', 'first.md', 'second.md', '--remote', '-o', 'remote', '--split', 'hrSplit', '-w', '200', '--height', '200', '--scale', '1'];
    const { code, stdout, stderr } = await runCli(args, { cwd: dir, env });
    assert.equal(code, 0, stderr);
    const files = ['first-1.png', 'second-1.png', 'second-2.png'].map((name) => path.join('remote', name));
    assert.deepEqual(stdout.trim().split('\n'), files);
    for (const file of files) {
      const png = await decodePng(fs.readFileSync(path.join(dir, file)));
      assert.deepEqual([png.width, png.height], [200, 200], file);
    }
  });

  it('honours size, scale, mode and the API defaults, like POST /api/generate', async () => {
    const dark = await runCli(['render', 'notes.md', '-o', 'sized', '-n', 'dark', '-w', '300', '--height', '400', '--scale', '1', '-m', 'dark-mode'], { cwd: dir });
    assert.equal(dark.code, 0, dark.stderr);
    const png = await decodePng(fs.readFileSync(path.join(dir, 'sized', 'dark-1.png')));
    assert.deepEqual([png.width, png.height], [300, 400]);
    // Graphite paper in dark mode, where light mode is white.
    assert.ok(png.data[(350 * png.width + 150) * 4]! < 60);
  });

  it('reads standard input with "-" and writes the requested format', async () => {
    // A mode the theme does not have is not refused: the API draws the default mode and warns
    // (said here on stderr and in the JSON, as the API says it in `warnings`). Tested in this
    // render rather than one of its own, which would cost a Chromium start and a render.
    const { code, stdout, stderr } = await runCli(['render', '-', '--out', 'piped', '--format', 'jpeg', '--json', '--mode', 'mint-mode'], { cwd: dir, stdin: '# From stdin\n\n你好' });
    assert.equal(code, 0, stderr);
    const modeWarning = 'themeMode "mint-mode" is not a mode of theme "plain-notes"; rendered in its default mode "light-mode". Modes of this theme: light-mode, dark-mode';
    assert.ok(stderr.includes(`cardwright: warning: ${modeWarning}`), stderr);
    const result = JSON.parse(stdout);
    assert.equal(result.warnings.length, 1);
    assert.ok(result.warnings[0].startsWith(modeWarning), result.warnings[0]);
    assert.equal(result.images.length, 1);
    assert.equal(result.images[0].file, path.join('piped', 'card-1.jpg'));
    const bytes = fs.readFileSync(path.join(dir, 'piped', 'card-1.jpg'));
    assert.ok(isJpeg(bytes));
    assert.equal(result.images[0].bytes, bytes.length);
    assert.equal(result.images[0].size, Math.round((bytes.length / 1024) * 100) / 100, 'size in KB, as the API answers');
    assert.deepEqual([result.success, result.cost], [true, 1]);
    assert.deepEqual([result.images[0].width, result.images[0].height], [880, 1172]);
  });

  it('answers a wrong option with a clear message and exit code 2, writing nothing', async () => {
    const unknown = await runCli(['render', 'notes.md', '-o', 'never', '--colour', 'red'], { cwd: dir });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown option '--colour'/);
    assert.match(unknown.stderr, /cardwright render --help/);

    const notANumber = await runCli(['render', 'notes.md', '-o', 'never', '--width', 'wide'], { cwd: dir });
    assert.equal(notANumber.code, 2);
    assert.equal(notANumber.stderr, 'cardwright: invalid_request: width is not accepted: got "wide"; accepted: card width in CSS px, 100–2000.\n', 'as the API says it');

    const noInput = await runCli(['render', '-o', 'never'], { cwd: dir });
    assert.equal(noInput.code, 2);
    assert.match(noInput.stderr, /needs a Markdown file, or - to read standard input/);
    assert.equal(fs.existsSync(path.join(dir, 'never')), false);
  });

  it("gives the API's message for values the API refuses", async () => {
    const theme = await runCli(['render', 'notes.md', '-o', 'never', '--theme', 'no-such-theme'], { cwd: dir });
    assert.equal(theme.code, 2);
    assert.match(theme.stderr, /invalid_request: theme "no-such-theme" is not a known theme\. Accepted: .*plain-notes/);

    // A mode the theme does not have is drawn in its default mode with a warning: see the
    // standard-input test above, whose render asks for one.

    const width = await runCli(['render', 'notes.md', '-o', 'never', '--width', '5000'], { cwd: dir });
    assert.equal(width.code, 2);
    assert.match(width.stderr, /width is not accepted: got number 5000; accepted: card width in CSS px, 100–2000/);

    const format = await runCli(['render', 'notes.md', '-o', 'never', '--format', 'gif'], { cwd: dir });
    assert.equal(format.code, 2);
    assert.match(format.stderr, /format is not accepted: got "gif"; accepted: png, jpeg, webp/);

    const watermark = await runCli(['render', 'notes.md', '-o', 'never', '--watermark', 'w'.repeat(41)], { cwd: dir });
    assert.equal(watermark.code, 2);
    assert.match(watermark.stderr, /watermark is not accepted: got "w{41}"; accepted: a mark on every card: a text of at most 40 characters/);
    assert.equal(fs.existsSync(path.join(dir, 'never')), false);
  });

  it('refuses numbered files left by an earlier, longer result, and removes them with --clean', async () => {
    fs.writeFileSync(path.join(dir, 'talk.md'), '# One\n\n---\n\n# Two\n\n---\n\n# Three');
    const small = ['--split', 'hrSplit', '--width', '200', '--height', '200', '--scale', '1'];
    const first = await runCli(['render', 'talk.md', '-o', 'talk', ...small], { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    fs.writeFileSync(path.join(dir, 'talk.md'), '# Only one');
    const refused = await runCli(['render', 'talk.md', '-o', 'talk', ...small], { cwd: dir });
    assert.equal(refused.code, 2);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /talk holds talk-2\.png, talk-3\.png from an earlier result, which would read as part of this one; add --clean to remove them/);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'talk')).sort(), ['talk-1.png', 'talk-2.png', 'talk-3.png']);

    const cleaned = await runCli(['render', 'talk.md', '-o', 'talk', '--clean', ...small], { cwd: dir });
    assert.equal(cleaned.code, 0, cleaned.stderr);
    assert.equal(cleaned.stdout, `${path.join('talk', 'talk-1.png')}\n`);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'talk')), ['talk-1.png']);
  });

  it('says so when standard input is empty, with exit code 2', async () => {
    for (const stdin of ['', '  \n\n']) {
      const { code, stdout, stderr } = await runCli(['render', '-', '-o', 'empty'], { cwd: dir, stdin });
      assert.equal(code, 2);
      assert.equal(stdout, '');
      assert.match(stderr, /standard input is empty: pipe Markdown into `cardwright render -`, or give a file\./);
    }
    assert.equal(fs.existsSync(path.join(dir, 'empty')), false);
  });

  it('refuses output folders it cannot write to without hanging: a file, or /proc and /sys', async () => {
    fs.writeFileSync(path.join(dir, 'plain-file'), 'x');
    const intoFile = await runCli(['render', 'notes.md', '-o', 'plain-file/cards'], { cwd: dir, timeoutMs: 30_000 });
    assert.equal(intoFile.code, 2);
    assert.match(intoFile.stderr, /--out plain-file\/cards is not a folder: .*plain-file is a file/);
    for (const pseudo of ['/proc/cardwright-cards', '/sys/kernel/cardwright']) {
      const { code, stderr } = await runCli(['render', 'notes.md', '-o', pseudo], { cwd: dir, timeoutMs: 30_000 });
      assert.equal(code, 2, `${pseudo}: ${stderr}`);
      assert.match(stderr, /--out is \/(proc|sys)\/.*pseudo-filesystem, where nothing can be stored: choose a path outside/);
    }
  });

  it('fails with exit code 1 when the input cannot be read', async () => {
    const { code, stdout, stderr } = await runCli(['render', 'missing.md'], { cwd: dir });
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /missing\.md: no such file/);
  });
});

describe('cardwright themes', () => {
  it('lists themes with their modes, as text and as the JSON of GET /api/themes', async () => {
    const text = await runCli(['themes']);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^plain-notes\s+Plain Notes\s+light-mode dark-mode$/m);
    assert.match(text.stdout, /apple-notes → plain-notes/);

    const json = await runCli(['themes', '--json']);
    const listing = JSON.parse(json.stdout);
    const plain = listing.themes.find((theme: { id: string }) => theme.id === 'plain-notes');
    assert.deepEqual(plain.modes, ['light-mode', 'dark-mode']);
    assert.equal(plain.defaultMode, 'light-mode');
    assert.equal(listing.aliases['apple-notes'], 'plain-notes');
  });

  it('aligns the table by display width, with wide (CJK) theme names', async () => {
    const themesDir = temporaryDir('cardwright-cli-themes-');
    try {
      fs.writeFileSync(path.join(themesDir, 'zen.css'), '/*\n * @id zen-notes\n * @name 禅意笔记\n * @modes ink-mode\n */\n.card-zen-notes { color: black; }\n');
      const { code, stdout, stderr } = await runCli(['themes'], { env: { THEMES_DIR: themesDir } });
      assert.equal(code, 0, stderr);
      const rows = stdout.split('\n\n')[0]!.split('\n');
      const columnOfModes = (row: string, mode: string) => {
        const before = row.slice(0, row.indexOf(mode));
        // Display columns: each CJK character takes two.
        return [...before].reduce((width, char) => width + (/[\u4e00-\u9fff]/.test(char) ? 2 : 1), 0);
      };
      const zen = rows.find((row) => row.startsWith('zen-notes'))!;
      const plain = rows.find((row) => row.startsWith('plain-notes'))!;
      assert.ok(zen.includes('禅意笔记'), zen);
      assert.equal(columnOfModes(zen, 'ink-mode'), columnOfModes(plain, 'light-mode'));
    } finally {
      fs.rmSync(themesDir, { recursive: true, force: true });
    }
  });
});

describe('cardwright keys create', () => {
  it('saves a new key where the service reads it, and the service accepts it', async () => {
    // The file's service: two keys were saved in its data folder by `cardwright keys create`, then it started.
    const service = await servedService();
    const [created, createdAgain] = service.keysCreated as [CliResult, CliResult];
    assert.equal(created.code, 0, created.stderr);
    const key = created.stdout.trim();
    assert.match(key, /^cw_[\w-]{32}$/);
    const file = path.join(service.dataDir, 'api-keys.txt');
    assert.match(created.stderr, new RegExp(`Saved in ${file.replaceAll('.', '\\.')}; a running service accepts it`));
    assert.ok(fs.readFileSync(file, 'utf8').split('\n').includes(key));
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);

    const second = createdAgain.stdout.trim();
    assert.notEqual(second, key);

    assert.equal((await service.generate({ markdown: '# key one' }, { 'x-api-key': key })).status, 200);
    assert.equal((await service.generate({ markdown: '# key two' }, { 'x-api-key': second })).status, 200);
    assert.equal((await service.generate({}, { 'x-api-key': 'cw_not-a-key-000000000000' })).status, 401);

    // A key created while the service runs, saved as a digest only, works without a restart.
    const hashed = await runCli(['keys', 'create', '--hashed'], { env: { DATA_DIR: service.dataDir } });
    assert.equal(hashed.code, 0, hashed.stderr);
    const third = hashed.stdout.trim();
    assert.match(hashed.stderr, /Its SHA-256 digest is saved in/);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    assert.ok(!lines.includes(third), 'the key file holds no secret for a hashed key');
    assert.ok(lines.some((line) => /^sha256:[0-9a-f]{64}$/.test(line)));
    let status = 0;
    for (let attempt = 0; attempt < 30 && status !== 200; attempt++) {
      status = (await service.generate({ markdown: '# key three' }, { 'x-api-key': third })).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(status, 200, 'the new key is accepted within 6 s');
  });

  it('appends to API_KEYS_FILE, and refuses when API_KEYS alone decides', async () => {
    const dir = temporaryDir();
    try {
      const keyFile = path.join(dir, 'keys.txt');
      fs.writeFileSync(keyFile, 'existing-key-0123456789');
      const { code, stdout } = await runCli(['keys', 'create'], { env: { API_KEYS_FILE: keyFile } });
      assert.equal(code, 0);
      assert.deepEqual(fs.readFileSync(keyFile, 'utf8').split('\n'), ['existing-key-0123456789', stdout.trim(), '']);

      const refused = await runCli(['keys', 'create'], { env: { API_KEYS: 'env-key-0123456789abcdef', DATA_DIR: dir } });
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, /API_KEYS is set/);
      assert.equal(fs.existsSync(path.join(dir, 'api-keys.txt')), false);

      const wrong = await runCli(['keys', 'delete']);
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /keys needs the action "create" or "revoke <key>"; got delete/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('revokes a key by removing its line, whether the file holds the key or its digest', async () => {
    const dir = temporaryDir();
    try {
      const keyFile = path.join(dir, 'keys.txt');
      const plain = 'plain-key-0123456789abcdef';
      const hashed = 'hashed-key-0123456789abcdef';
      const kept = 'kept-key-0123456789abcdef';
      fs.writeFileSync(keyFile, `# keys\n${plain}\n${hashedKeyEntry(hashed)}\n${kept}\n`);
      for (const key of [plain, hashed]) {
        const { code, stderr } = await runCli(['keys', 'revoke', key], { env: { API_KEYS_FILE: keyFile } });
        assert.equal(code, 0, stderr);
        assert.match(stderr, /Removed from .*keys\.txt/);
      }
      assert.equal(fs.readFileSync(keyFile, 'utf8'), `# keys\n${kept}\n`);

      // Nowhere to revoke it: said, not silently ignored.
      const nowhere = await runCli(['keys', 'revoke', plain], { env: { API_KEYS_FILE: keyFile } });
      assert.equal(nowhere.code, 1);
      assert.match(nowhere.stderr, /in no key file and REDIS_URL is not set/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('cardwright serve', () => {
  it('starts the service, which answers until it is stopped', async () => {
    // The file's service (the tests above used it); stopped here, last.
    const service = await servedService();
    assert.ok(service.running(), `the service is running; it wrote: ${service.stderr()}`);
    const themes = await fetch(`${service.baseUrl}/api/themes`);
    assert.equal(themes.status, 200);
    const generated = await service.generate({});
    assert.equal(generated.status, 200);
    assert.equal(await service.stop(), 0, 'a stopped service exits cleanly');
  });

  it('rejects a bad port with exit code 2', async () => {
    const { code, stderr } = await runCli(['serve', '--port', 'eighty']);
    assert.equal(code, 2);
    assert.match(stderr, /--port needs a number; got "eighty"/);
  });
});
