// The theme picker: every theme of GET /api/themes (custom ones included) with a thumbnail
// rendered by the service, its name, ID and mode IDs, and colour swatches per mode. Built on
// native radio buttons, so arrow keys move between themes and modes and screen readers announce
// them as choices.

import { t, tCount } from './i18n.js';

export const thumbnailUrl = (themeId, mode) =>
  `/api/themes/${encodeURIComponent(themeId)}/thumbnail.webp${mode ? `?mode=${encodeURIComponent(mode)}` : ''}`;

/** Creates an element with attributes and children; strings become text, never HTML. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === undefined || value === null) continue;
    if (name === 'class') element.className = value;
    else if (name in element && typeof value !== 'string') element[name] = value;
    else element.setAttribute(name, value === true ? '' : value);
  }
  element.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return element;
}

const themeCount = (count) => tCount('{count} theme', '{count} themes', { count });

export class ThemeGallery {
  /**
   * @param {object} elements  list, filter, count, modeList, modeNone, modeThemeName
   * @param {(choice: {theme: string, mode: string | null}) => void} onChange
   */
  constructor(elements, onChange) {
    this.el = elements;
    this.onChange = onChange;
    this.themes = [];
    this.swatchColours = new Map();
    this.el.filter.addEventListener('input', () => this.applyFilter());
  }

  themeById(id) {
    return this.themes.find((theme) => theme.id === id || theme.className === id);
  }

  /** Fills the list; `selected` is the theme and mode to start with. */
  setThemes(themes, selected) {
    this.themes = themes;
    this.el.count.textContent = themeCount(themes.length);
    this.el.list.replaceChildren(...themes.map((theme) => this.themeOption(theme)));
    this.select(selected.theme, selected.mode, false);
    // Scrolls only the list (not the page) so the chosen theme is in view.
    const chosen = this.el.list.querySelector('input:checked')?.closest('label');
    if (chosen) this.el.list.scrollTop = chosen.offsetTop - 4;
    for (const theme of themes) {
      for (const mode of theme.modes.length > 0 ? theme.modes : [null]) void this.loadSwatch(theme, mode);
    }
  }

  themeOption(theme) {
    const input = h('input', { type: 'radio', name: 'theme', value: theme.id, 'data-theme': theme.id });
    input.addEventListener('change', () => {
      if (input.checked) this.select(theme.id, theme.defaultMode, true);
    });
    const modeChips = theme.modes.length
      ? h('span', { class: 'mode-chips' },
          theme.modes.map((mode) => {
            const chip = h('span', { class: 'mode-chip', 'data-mode': mode, title: t('Use {mode}', { mode }) },
              h('span', { class: 'dot', 'data-swatch': `${theme.id}\n${mode}` }), h('code', {}, mode));
            // A click on a mode of another theme picks that theme in that mode (the mode radios
            // below are the keyboard way to the same choice).
            chip.addEventListener('click', (event) => {
              event.preventDefault();
              this.select(theme.id, mode, true);
              input.focus({ preventScroll: true });
            });
            return chip;
          }))
      : h('span', { class: 'no-modes' }, t('no modes'));
    return h('label', { class: 'theme-option', 'data-theme-option': theme.id, 'data-search': `${theme.name} ${theme.id} ${theme.className} ${theme.modes.join(' ')}`.toLowerCase() },
      input,
      h('img', { class: 'thumb', alt: '', loading: 'lazy', decoding: 'async', width: '72', height: '96', src: thumbnailUrl(theme.id, theme.defaultMode) }),
      h('span', { class: 'theme-meta' },
        h('span', { class: 'theme-name' }, theme.name, theme.custom ? h('span', { class: 'badge' }, t('custom')) : null),
        h('code', { class: 'theme-id' }, theme.custom ? theme.className : theme.id),
        modeChips));
  }

  /** Selects a theme and mode, updates the mode radios and the thumbnail; `notify` reports it. */
  select(themeId, mode, notify) {
    const theme = this.themeById(themeId) ?? this.themes[0];
    if (!theme) return;
    const chosenMode = theme.modes.includes(mode) ? mode : (theme.defaultMode ?? null);
    const input = this.el.list.querySelector(`input[data-theme="${CSS.escape(theme.id)}"]`);
    if (input) input.checked = true;
    const thumb = input?.parentElement.querySelector('.thumb');
    if (thumb) thumb.src = thumbnailUrl(theme.id, chosenMode);
    for (const chip of this.el.list.querySelectorAll('.theme-option .mode-chip')) {
      chip.classList.toggle('current', chip.closest('[data-theme-option]').dataset.themeOption === theme.id && chip.dataset.mode === chosenMode);
    }
    this.renderModes(theme, chosenMode);
    this.current = { theme: theme.id, mode: chosenMode };
    if (notify) this.onChange(this.current);
  }

  renderModes(theme, chosenMode) {
    this.el.modeThemeName.textContent = t('of {name}', { name: theme.name });
    this.el.modeNone.hidden = theme.modes.length > 0;
    this.el.modeList.replaceChildren(
      ...theme.modes.map((mode) => {
        const input = h('input', { type: 'radio', name: 'themeMode', value: mode, checked: mode === chosenMode });
        input.addEventListener('change', () => {
          if (input.checked) this.select(theme.id, mode, true);
        });
        return h('label', { class: 'swatch' }, input, h('span', { class: 'dot', 'data-swatch': `${theme.id}\n${mode}` }), h('code', {}, mode));
      }),
    );
    this.paintSwatches();
  }

  applyFilter() {
    const query = this.el.filter.value.trim().toLowerCase();
    let shown = 0;
    for (const option of this.el.list.children) {
      const match = !query || option.dataset.search.includes(query);
      option.hidden = !match;
      if (match) shown += 1;
    }
    this.el.count.textContent = query ? t('{shown} of {total}', { shown, total: this.themes.length }) : themeCount(this.themes.length);
  }

  /** Derives a mode's swatch (background and accent colour) from its rendered thumbnail. */
  async loadSwatch(theme, mode) {
    const key = `${theme.id}\n${mode ?? ''}`;
    try {
      const image = new Image();
      image.src = thumbnailUrl(theme.id, mode);
      await image.decode();
      this.swatchColours.set(key, swatchOf(image));
      this.paintSwatches();
    } catch {
      // A swatch is decoration: without it the mode ID is still shown.
    }
  }

  paintSwatches() {
    for (const dot of document.querySelectorAll('[data-swatch]')) {
      const colours = this.swatchColours.get(dot.dataset.swatch);
      if (colours) dot.style.background = `linear-gradient(135deg, ${colours.background} 0 55%, ${colours.accent} 55% 100%)`;
    }
  }
}

/**
 * The most common colour of a card image is its background; its accent is the most common
 * strongly coloured one (or, for black-and-white themes, the text colour).
 */
function swatchOf(image) {
  const width = 44;
  const height = 58;
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d', { willReadFrequently: true });
  context.drawImage(image, 0, 0, width, height);
  const { data } = context.getImageData(0, 0, width, height);
  const counts = new Map();
  const saturated = new Map();
  for (let i = 0; i < data.length; i += 4) {
    // 4 bits per channel: close shades count as one colour.
    const key = ((data[i] >> 4) << 8) | ((data[i + 1] >> 4) << 4) | (data[i + 2] >> 4);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const max = Math.max(data[i], data[i + 1], data[i + 2]);
    const min = Math.min(data[i], data[i + 1], data[i + 2]);
    if (max > 40 && (max - min) / max > 0.35) saturated.set(key, (saturated.get(key) ?? 0) + 1);
  }
  const top = (map, except) => [...map.entries()].filter(([key]) => key !== except).sort((a, b) => b[1] - a[1])[0]?.[0];
  const background = top(counts);
  const accent = top(saturated, background) ?? farthest(counts, background);
  return { background: css(background), accent: css(accent ?? background) };
}

function farthest(counts, from) {
  let best;
  let bestDistance = -1;
  for (const [key, count] of counts) {
    if (count < 4) continue;
    const distance = Math.abs((key >> 8) - (from >> 8)) + Math.abs(((key >> 4) & 15) - ((from >> 4) & 15)) + Math.abs((key & 15) - (from & 15));
    if (distance > bestDistance) [best, bestDistance] = [key, distance];
  }
  return best;
}

const css = (key) => `rgb(${((key >> 8) & 15) * 17} ${((key >> 4) & 15) * 17} ${(key & 15) * 17})`;
