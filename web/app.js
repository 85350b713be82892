// The web page: a Markdown editor with a live preview rendered by the service's own pipeline, a
// theme gallery, size and layout controls, and Generate, which calls POST /api/generate with the
// visitor's key. Settings and the key stay in this browser (localStorage); nothing else is sent
// anywhere but to this service.
import { curlCommand, errorField, readAnswer, requestBody } from './api-request.js';
import { readFrontMatter, writeFrontMatter } from './front-matter.js';
import { language, switchLanguage, t, tCount, translate } from './i18n.js';
import { PreviewFrame } from './preview-frame.js';
import { sampleMarkdown } from './sample.js';
import { h, ThemeGallery } from './theme-gallery.js';

const $ = (id) => document.getElementById(id);

// The page's own words in the visitor's language, before anything else is shown.
translate();

const sizePresets = [
  { id: '3:4', width: 440, height: 586, hint: 'Post' },
  { id: '3:5', width: 440, height: 733, hint: 'Cover' },
  { id: '9:16', width: 440, height: 782, hint: 'Story' },
  { id: '1:1', width: 500, height: 500, hint: 'Square' },
  { id: 'A4', width: 595, height: 842, hint: 'Print' },
  // Full-resolution platform sizes: the image is width × height pixels at scale 1, and fontScale
  // sets the type as large as on a 440-px card (README.md, "Sizes for each platform").
  { id: 'IG', width: 1080, height: 1350, hint: 'Instagram', fontScale: 2.5, scale: 1 },
  { id: 'RED', width: 1242, height: 1660, hint: 'Xiaohongshu', fontScale: 2.8, scale: 1 },
];

/**
 * The request model's defaults and bounds come from the service (GET /api/config), so the page
 * never offers a value the API refuses; only the sample document is the page's own.
 */
const serverConfig = await fetch('/api/config').then((answer) => answer.json());
const defaults = { ...serverConfig.defaults, markdown: sampleMarkdown, themeMode: null };

const storageKeys = { settings: 'cardwright.settings', apiKey: 'cardwright.apiKey' };

/**
 * Waits this long after a keystroke, so a burst of input (a paste, key repeat) makes one request.
 * Beyond that, requests never overlap: changes made while one is in flight go out together.
 */
const previewDebounceMs = 10;

// ---------------------------------------------------------------- settings and their storage

function loadSettings() {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKeys.settings) ?? '{}');
    return { ...defaults, ...saved };
  } catch {
    return { ...defaults };
  }
}

/**
 * A generate answer's previewUrl is this page with ?edit=<id>: the request saved beside its images
 * (GET /api/requests/:id) replaces the settings and the Markdown, so the editor shows that request.
 */
async function loadSavedRequest() {
  const id = new URLSearchParams(location.search).get('edit');
  if (!id) return {};
  try {
    const answer = await fetch(`/api/requests/${encodeURIComponent(id)}`);
    return answer.ok ? await answer.json() : {};
  } catch {
    return {};
  }
}

/** Fields a saved request may carry that have no control on this page: kept for its preview and cURL, never remembered. */
const requestOnlyFields = ['weChatMode', 'background'];
/** Default for the controls of fields the service leaves unset by default. */
const pageDefaults = { hashtags: true, fontFamily: '' };

let saveTimer;
function saveSettings() {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => {
    try {
      const remembered = Object.fromEntries(Object.entries(settings).filter(([field]) => !requestOnlyFields.includes(field)));
      localStorage.setItem(storageKeys.settings, JSON.stringify(remembered));
    } catch {
      // Private browsing or a full quota: the page still works, it just forgets.
    }
  }, 300);
}

const settings = { ...pageDefaults, ...loadSettings(), ...(await loadSavedRequest()) };
const ui = {
  markdown: $('markdown'),
  width: $('width'),
  height: $('height'),
  overHiddenMode: $('overHiddenMode'),
  mdxMode: $('mdxMode'),
  hashtags: $('hashtags'),
  fontFamily: $('fontFamily'),
  format: $('format'),
  scale: $('scale'),
  apiKey: $('api-key'),
  curl: $('curl'),
  generate: $('generate'),
};

const preview = new PreviewFrame($('preview-frame'), $('preview-stage'), $('preview-scroll'));
const gallery = new ThemeGallery(
  { list: $('theme-list'), filter: $('theme-filter'), count: $('theme-count'), modeList: $('mode-list'), modeNone: $('mode-none'), modeThemeName: $('mode-theme-name') },
  ({ theme, mode }) => update({ theme, themeMode: mode }),
);

/** Applies a change of settings everywhere it shows. */
function update(changes) {
  Object.assign(settings, changes);
  saveSettings();
  renderRequest();
  syncPreset();
  schedulePreview();
}

const currentTheme = () => gallery.themeById(settings.theme);
const currentBody = () => requestBody(settings, currentTheme());

// ---------------------------------------------------------------- errors next to their controls

/** Where each field's error is shown, and which control is marked invalid. */
const errorSlots = {
  markdown: ['markdown-error', 'markdown'],
  theme: ['theme-error', 'theme-list'],
  themeMode: ['themeMode-error', 'mode-list'],
  width: ['size-error', 'width'],
  height: ['size-error', 'height'],
  splitMode: ['splitMode-error', null],
  mdxMode: ['mdxMode-error', 'mdxMode'],
  overHiddenMode: ['overHiddenMode-error', 'overHiddenMode'],
  hashtags: ['hashtags-error', 'hashtags'],
  fontFamily: ['fontFamily-error', 'fontFamily'],
  watermark: ['watermark-error', 'watermark-text'],
  format: ['format-error', 'format'],
  scale: ['scale-error', 'scale'],
  'api-key': ['api-key-error', 'api-key'],
  generate: ['generate-error', null],
};
/** Errors by source ("preview" or "generate"), each {field, message}. */
const errors = { preview: null, generate: null };

function setError(source, field, message) {
  errors[source] = field ? { field, message } : null;
  renderErrors();
}

function renderErrors() {
  for (const [slotId, controlId] of Object.values(errorSlots)) {
    $(slotId).hidden = true;
    if (controlId) $(controlId).removeAttribute('aria-invalid');
  }
  for (const source of ['preview', 'generate']) {
    const error = errors[source];
    if (!error) continue;
    const [slotId, controlId] = errorSlots[error.field] ?? errorSlots.generate;
    $(slotId).textContent = error.message;
    $(slotId).hidden = false;
    if (controlId) $(controlId).setAttribute('aria-invalid', 'true');
  }
}

// ---------------------------------------------------------------- live preview

let previewTimer;
let previewInFlight = false;
let previewPending = false;
/** When the oldest change not yet shown was made, to measure input → preview time. */
let changedAt;
/** Recent input → preview times in ms, newest last (read by the status line and by tests). */
const previewTimings = [];
window.cardwrightPreviewTimings = previewTimings;
/** The server's share of each, from its Server-Timing header. */
const previewServerTimings = [];
window.cardwrightPreviewServerTimings = previewServerTimings;

/** Until when the service asked us to wait (429/503 Retry-After), as a performance.now() time. */
let previewRetryAt = 0;

function schedulePreview() {
  changedAt ??= performance.now();
  clearTimeout(previewTimer);
  previewTimer = setTimeout(runPreview, Math.max(previewDebounceMs, previewRetryAt - performance.now()));
}

/** One preview request at a time; changes made meanwhile are sent as one when it returns. */
async function runPreview() {
  if (previewInFlight) {
    previewPending = true;
    return;
  }
  previewInFlight = true;
  const since = changedAt;
  changedAt = undefined;
  try {
    const response = await fetch('/api/preview', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(currentBody()),
    });
    const answer = await readAnswer(response);
    if (answer.ok) {
      await preview.show(answer.json.cards);
      $('preview-stage').classList.remove('stale');
      setError('preview', null);
      const ms = performance.now() - since;
      previewTimings.push(ms);
      previewServerTimings.push(Number(/dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? NaN));
      if (previewTimings.length > 50) previewTimings.shift();
      if (previewServerTimings.length > 50) previewServerTimings.shift();
      const count = answer.json.cards.length;
      const params = { count, width: answer.json.width, height: answer.json.height, ms: Math.round(ms) };
      $('preview-status').textContent = tCount('{count} card · {width}×{height} · {ms} ms', '{count} cards · {width}×{height} · {ms} ms', params);
    } else if (answer.status === 429 || answer.status === 503) {
      // Busy or over this address's preview budget: try again when the service says, quietly.
      const seconds = Number(response.headers.get('retry-after')) || 1;
      $('preview-status').textContent = t('Busy, retrying in {seconds} s', { seconds });
      changedAt ??= since;
      previewRetryAt = performance.now() + seconds * 1000;
      previewPending = false;
      schedulePreview();
    } else {
      $('preview-stage').classList.add('stale');
      $('preview-status').textContent = t('Not updated');
      setError('preview', errorField(answer.status, answer.error), answer.error.message);
    }
  } catch {
    $('preview-stage').classList.add('stale');
    $('preview-status').textContent = t('The service cannot be reached');
  } finally {
    previewInFlight = false;
    if (previewPending) {
      previewPending = false;
      changedAt ??= since;
      schedulePreview();
    }
  }
}

// ---------------------------------------------------------------- controls

function setupEditor() {
  ui.markdown.value = settings.markdown;
  const count = () => {
    $('char-count').textContent = t('{count} / {max}', { count: ui.markdown.value.length.toLocaleString(), max: serverConfig.limits.markdownMaxLength.toLocaleString() });
  };
  count();
  // Ctrl+Enter (⌘+Enter) in the editor generates, as in most editors with a "run" action.
  ui.markdown.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void generate();
    }
  });
  ui.markdown.addEventListener('input', () => {
    count();
    update({ markdown: ui.markdown.value });
    syncCreatorPanel();
  });
  $('reset-sample').addEventListener('click', () => {
    ui.markdown.value = sampleMarkdown;
    count();
    update({ markdown: sampleMarkdown });
    syncCreatorPanel();
    ui.markdown.focus();
  });
}

// ---------------------------------------------------------------- cover and signature (front matter)

const creatorInputs = () => document.querySelectorAll('[data-front-matter]');
const creatorKeys = () => Array.from(creatorInputs(), (input) => input.dataset.frontMatter);

/** Shows what the Markdown's front matter sets in the panel (the editor is the source of truth). */
function syncCreatorPanel() {
  const values = readFrontMatter(ui.markdown.value, creatorKeys());
  for (const input of creatorInputs()) {
    if (document.activeElement === input) continue;
    const value = values[input.dataset.frontMatter];
    if (input.type === 'checkbox') input.checked = value === true || (typeof value === 'string' && value !== '' && value !== 'false');
    else input.value = typeof value === 'string' ? value : '';
  }
}

function setupCreatorPanel() {
  syncCreatorPanel();
  for (const input of creatorInputs()) {
    input.addEventListener(input.type === 'checkbox' ? 'change' : 'input', () => {
      const value = input.type === 'checkbox' ? input.checked : input.value;
      ui.markdown.value = writeFrontMatter(ui.markdown.value, input.dataset.frontMatter, value);
      update({ markdown: ui.markdown.value });
    });
  }
}

// ---------------------------------------------------------------- watermark (the request's `watermark` field)

/**
 * The text, position and opacity controls set `settings.watermark`: the text always, the position
 * and opacity once chosen, so the request (and its cURL) says only what the visitor set. A logo from
 * a saved request is kept as it came.
 */
function setupWatermark() {
  const text = $('watermark-text');
  const position = $('watermark-position');
  const opacity = $('watermark-opacity');
  const limits = serverConfig.watermark;
  opacity.min = String(limits.opacity.min);
  opacity.max = String(limits.opacity.max);
  const shownOpacity = () => settings.watermark?.opacity ?? (position.value === 'tiled' ? limits.opacity.tiledDefault : limits.opacity.default);
  const show = () => {
    opacity.value = String(shownOpacity());
    $('watermark-opacity-value').textContent = `${Math.round(shownOpacity() * 100)}%`;
  };
  text.value = settings.watermark?.text ?? '';
  position.value = settings.watermark?.position ?? limits.positions[0];
  show();
  const change = (changes) => {
    const next = { ...settings.watermark, ...changes };
    if (next.position === limits.positions[0]) delete next.position;
    update({ watermark: next });
    show();
  };
  text.addEventListener('input', () => change({ text: text.value }));
  position.addEventListener('change', () => change({ position: position.value }));
  opacity.addEventListener('input', () => change({ opacity: opacity.valueAsNumber }));
}

function setupSize() {
  const list = $('size-presets');
  for (const preset of sizePresets) {
    const ratio = preset.height / preset.width;
    const shape = h('span', { class: 'shape', 'aria-hidden': 'true' });
    shape.style.width = `${Math.round(22 / Math.max(1, ratio))}px`;
    shape.style.height = `${Math.round(22 * Math.min(1, ratio))}px`;
    const input = h('input', { type: 'radio', name: 'size-preset', value: preset.id, 'aria-label': t('{id}, {width} by {height}', preset) });
    input.addEventListener('change', () => {
      if (!input.checked) return;
      ui.width.value = String(preset.width);
      ui.height.value = String(preset.height);
      const fontScale = preset.fontScale ?? 1;
      const scale = preset.scale ?? settings.scale;
      ui.scale.value = String(scale);
      update({ width: preset.width, height: preset.height, fontScale, scale });
    });
    list.append(h('label', { class: 'preset', 'data-preset': preset.id, title: `${preset.width}×${preset.height}` },
      input, shape, h('strong', {}, preset.id), h('small', {}, `${preset.width}×${preset.height}`)));
  }
  ui.width.value = String(settings.width);
  ui.height.value = String(settings.height);
  for (const field of ['width', 'height']) {
    ui[field].min = String(serverConfig.limits[field].min);
    ui[field].max = String(serverConfig.limits[field].max);
  }
  for (const field of ['width', 'height']) {
    ui[field].addEventListener('input', () => {
      const value = ui[field].valueAsNumber;
      // An empty box means "not decided yet": keep the last size until a number is typed.
      if (Number.isFinite(value)) update({ [field]: value });
    });
  }
}

/** Marks the preset that matches the current size, if any. */
function syncPreset() {
  for (const input of document.querySelectorAll('input[name="size-preset"]')) {
    const preset = sizePresets.find((candidate) => candidate.id === input.value);
    input.checked = preset.width === settings.width && preset.height === settings.height;
  }
}

function setupLayout() {
  for (const input of document.querySelectorAll('input[name="splitMode"]')) {
    input.checked = input.value === settings.splitMode;
    input.addEventListener('change', () => input.checked && update({ splitMode: input.value }));
  }
  for (const field of ['overHiddenMode', 'mdxMode']) {
    ui[field].checked = settings[field];
    ui[field].addEventListener('change', () => update({ [field]: ui[field].checked }));
  }
  ui.hashtags.checked = settings.hashtags !== false;
  ui.hashtags.addEventListener('change', () => update({ hashtags: ui.hashtags.checked }));
  ui.fontFamily.value = settings.fontFamily ?? '';
  ui.fontFamily.addEventListener('change', () => update({ fontFamily: ui.fontFamily.value }));
  ui.format.value = settings.format;
  ui.scale.value = String(settings.scale);
  ui.format.addEventListener('change', () => update({ format: ui.format.value }));
  ui.scale.addEventListener('change', () => update({ scale: Number(ui.scale.value) }));
  $('zoom-fit').addEventListener('click', () => setZoom('fit'));
  $('zoom-actual').addEventListener('click', () => setZoom('actual'));
}

function setZoom(zoom) {
  $('zoom-fit').setAttribute('aria-pressed', String(zoom === 'fit'));
  $('zoom-actual').setAttribute('aria-pressed', String(zoom === 'actual'));
  preview.setZoom(zoom);
}

// ---------------------------------------------------------------- API request: cURL and JSON

function renderRequest() {
  ui.curl.textContent = curlCommand(location.origin, currentBody());
}

async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Without the async clipboard (plain http on another host), fall back to a selection.
    const area = h('textarea', { class: 'visually-hidden', readonly: true });
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  $('copy-status').textContent = t('{what} copied.', { what: t(what) });
  setTimeout(() => ($('copy-status').textContent = ''), 2500);
}

function setupCopy() {
  $('copy-curl').addEventListener('click', () => copy(ui.curl.textContent, 'cURL command (set CARDWRIGHT_API_KEY to your key)'));
  $('copy-json').addEventListener('click', () => copy(JSON.stringify(currentBody(), null, 2), 'JSON body'));
}

// ---------------------------------------------------------------- Generate

function setupKey() {
  ui.apiKey.value = localStorage.getItem(storageKeys.apiKey) ?? '';
  ui.apiKey.addEventListener('input', () => {
    const key = ui.apiKey.value.trim();
    if (key) localStorage.setItem(storageKeys.apiKey, key);
    else localStorage.removeItem(storageKeys.apiKey);
    if (errors.generate?.field === 'api-key') setError('generate', null);
  });
  $('toggle-key').addEventListener('click', () => {
    const show = ui.apiKey.type === 'password';
    ui.apiKey.type = show ? 'text' : 'password';
    $('toggle-key').setAttribute('aria-pressed', String(show));
    $('toggle-key').textContent = show ? t('Hide') : t('Show');
  });
}

const formatBytes = (bytes) => (bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

async function generate() {
  if (ui.generate.getAttribute('aria-busy') === 'true') return;
  const key = ui.apiKey.value.trim();
  if (!key) {
    setError('generate', 'api-key', t('Enter your API key to generate images. The service prints it on its first start; it is also in data/api-keys.txt.'));
    ui.apiKey.focus();
    return;
  }
  setError('generate', null);
  ui.generate.setAttribute('aria-busy', 'true');
  ui.generate.querySelector('.label').textContent = t('Generating…');
  $('generate-status').textContent = '';
  const started = performance.now();
  try {
    const answer = await callGenerate(key, currentBody());
    if (!answer.ok) {
      setError('generate', errorField(answer.status, answer.error), serviceSays(answer.error.message));
      $('generate-status').textContent = '';
      return;
    }
    const images = answer.json.images;
    lastResult = { images, body: currentBody() };
    $('results').replaceChildren(...images.map((image, index) => resultItem(image, index, images.length)));
    $('download-all').hidden = false;
    $('download-zip').hidden = images.length < 2 || images.some((image) => image.fileName.endsWith('.pdf'));
    $('download-pdf').hidden = images.some((image) => image.fileName.endsWith('.pdf'));
    $('download-status').textContent = '';
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    $('generate-status').textContent = tCount('{count} image in {seconds} s. Links are public.', '{count} images in {seconds} s. Links are public.', { count: images.length, seconds });
    $('results').scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  } catch {
    setError('generate', 'generate', t('The service cannot be reached. Check that it is running, then try again.'));
  } finally {
    ui.generate.removeAttribute('aria-busy');
    ui.generate.querySelector('.label').textContent = t('Generate images');
  }
}

/** An API error message, in the service's own (English) words, introduced in the page's language. */
const serviceSays = (message) => (language === 'en' ? message : t('The service says: {message}', { message }));

async function callGenerate(key, body) {
  const response = await fetch('/api/generate', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  return readAnswer(response);
}

/** The images and request of the last result, for downloading them at once. */
let lastResult;

/** Saves `blob` as a file named `name` through a temporary link. */
function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * A stored image, read by this page. It may live at another origin than the page (an S3 bucket, or
 * the service under its PUBLIC_BASE_URL while the page was opened at another host name), which the
 * service's /screenshots/ and a bucket's CORS rules allow.
 */
async function storedFile(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  return response.blob();
}

/**
 * One image saved under its own name. Browsers ignore a link's `download` attribute for another
 * origin and navigate to the image instead, so the file is read here and saved from this page.
 */
async function downloadImage(event, url, name) {
  event.preventDefault();
  $('download-status').textContent = '';
  try {
    save(await storedFile(url), name);
  } catch (error) {
    $('download-status').textContent = t('The images could not be downloaded: {message}', { message: error.message });
  }
}

/** Every image of the last result in one ZIP, packed in this browser (fflate, stored: images are compressed already). */
async function downloadZip() {
  if (!lastResult) return;
  const { images } = lastResult;
  $('download-status').textContent = t('Packing {count} images…', { count: images.length });
  try {
    const { zipSync } = await import('/vendor/fflate.js');
    const files = {};
    await Promise.all(images.map(async (image, index) => {
      const extension = image.fileName.split('.').pop();
      files[`card-${String(index + 1).padStart(2, '0')}.${extension}`] = [new Uint8Array(await (await storedFile(image.url)).arrayBuffer()), { level: 0 }];
    }));
    save(new Blob([zipSync(files)], { type: 'application/zip' }), 'cards.zip');
    $('download-status').textContent = '';
  } catch (error) {
    $('download-status').textContent = t('The images could not be downloaded: {message}', { message: error.message });
  }
}

/** The last result's cards as one PDF: the same request with format "pdf". */
async function downloadPdf() {
  if (!lastResult) return;
  $('download-status').textContent = t('Making the PDF…');
  try {
    const answer = await callGenerate(ui.apiKey.value.trim(), { ...lastResult.body, format: 'pdf' });
    if (!answer.ok) throw new Error(serviceSays(answer.error.message));
    const [pdf] = answer.json.images;
    save(await storedFile(pdf.url), 'cards.pdf');
    $('download-status').textContent = '';
  } catch (error) {
    $('download-status').textContent = t('The images could not be downloaded: {message}', { message: error.message });
  }
}

function resultItem(image, index, total) {
  const name = image.fileName.split('/').pop();
  const isPdf = name.endsWith('.pdf');
  return h('li', { class: 'result' },
    h('a', { class: 'image-link', href: image.url, target: '_blank', rel: 'noopener' },
      isPdf
        ? h('span', { class: 'pdf-item' }, t('PDF document'))
        : h('img', { src: image.url, alt: image.alt || t('Card {index} of {total}', { index: index + 1, total }), width: String(image.width), height: String(image.height), loading: 'lazy' })),
    h('span', { class: 'result-meta' }, h('span', {}, `${image.width}×${image.height}`), h('span', {}, formatBytes(image.bytes))),
    // The text to paste into a post's alt field (Instagram, X, Mastodon, Bluesky take one per image).
    image.alt
      ? h('details', { class: 'result-alt' },
          h('summary', {}, t('Alt text')),
          h('p', { class: 'result-alt-text' }, image.alt),
          h('button', { type: 'button', class: 'copy-alt', onclick: () => copy(image.alt, 'Alt text') }, t('Copy alt text')))
      : null,
    h('span', { class: 'result-actions' },
      h('a', { href: image.url, download: name, onclick: (event) => downloadImage(event, image.url, name) }, t('Download')),
      h('a', { href: image.url, target: '_blank', rel: 'noopener' }, t('Open'))));
}

// ---------------------------------------------------------------- start

async function loadThemes() {
  try {
    const answer = await readAnswer(await fetch('/api/themes'));
    if (!answer.ok) throw new Error(answer.error.message);
    gallery.setThemes(answer.json.themes, { theme: settings.theme, mode: settings.themeMode });
    // A saved theme that no longer exists falls back to the first one.
    Object.assign(settings, { theme: gallery.current.theme, themeMode: gallery.current.mode });
  } catch (error) {
    setError('preview', 'theme', t('The themes could not be loaded: {message}', { message: error.message }));
  }
}

setupEditor();
setupCreatorPanel();
setupWatermark();
setupSize();
setupLayout();
setupKey();
setupCopy();
ui.generate.addEventListener('click', generate);
$('download-zip').addEventListener('click', downloadZip);
$('download-pdf').addEventListener('click', downloadPdf);
$('language').value = language;
$('language').addEventListener('change', () => switchLanguage($('language').value));
// The header's Generate does the same and brings the results (or the error) into view.
$('generate-top').addEventListener('click', () => {
  $('generate-section').scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  void generate();
});
await loadThemes();
renderRequest();
syncPreset();
schedulePreview();
