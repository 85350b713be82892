import { startService } from './helpers/service.js';
import { coverDesigns } from '../src/cards/cover/cover-designs.js';
import { fitCover, smallestDesignFit } from '../src/cards/cover/fit-cover.js';
import { cardMarkup } from '../src/cards/render/card-markup.js';
import { truncateOverflowInPage } from '../src/cards/render/truncate-overflow.js';
const service = await startService();
try {
  const texts = ['七天学会做知识卡片', 'Weekly notes', '七天学会做知识卡片\n副标题在这里', '七天学会做知识卡片\\n副标题'];
  for (const t of service.app.cards.themes.themes) for (const mode of t.modes ?? [undefined]) for (const text of texts) {
  const request: any = { text, keywords: [], count: 3, width: 440, height: 586, scale: 1, format: 'png' };
  const { theme, mode: m } = service.app.cards.themes.resolve(t.id, mode);
  for (const design of coverDesigns(request)) {
  const card = { theme, mode: m, width: 440, height: 586, scale: 1 };
  const out = await service.app.cards.renderer.run(AbortSignal.timeout(30000), async (page) => {
    const html = await fitCover(page, { ...card, html: design.html, smallest: smallestDesignFit });
    await page.layout(cardMarkup({ ...card, fixedHeight: true, contentHtml: html }));
    const n = await page.run(truncateOverflowInPage, undefined as never);
    return page.evaluate<any>(`(() => {
      const inner = document.querySelector('.card-content-inner'); const box = inner.getBoundingClientRect();
      const t = document.querySelector('.cover-title'); const range = document.createRange(); range.selectNodeContents(t);
      const rects = [...range.getClientRects()].map(r => [Math.round(r.top), Math.round(r.bottom)]);
      return { cut: inner.style.getPropertyValue('--truncate-at'), box: [box.top, box.bottom], rects, lh: getComputedStyle(t).lineHeight, ff: getComputedStyle(t).fontFamily.slice(0,60) };
    })()`).then(o => ({ ...o, n }));
  });
  if (out.n) console.log(t.id, m, design.name, JSON.stringify(text), JSON.stringify(out));
  }
  }
} finally { await service.close(); }
