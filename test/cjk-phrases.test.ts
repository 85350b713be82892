// Where the Markdown stage lets a Chinese or Japanese line break (src/cards/markdown/cjk-phrases.ts,
// cjk-phrase-breaks.ts), read in the HTML it produces: <wbr> only between words and phrases, none
// in code, titles or short terms, none near a block's end. The lines these make in the page are
// measured in test/themes-b.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jaModel, Parser, zhHansModel } from 'budoux';
import { textHtml, titleSize } from '../src/cards/cover/cover-designs.js';
import { renderMarkdown } from '../src/cards/markdown/render-markdown.js';

/** The text of `html` (tags dropped, entities of the test's texts read) and the offsets of its <wbr>s in it. */
function breakPoints(html: string): { text: string; breaks: number[] } {
  let text = '';
  const breaks: number[] = [];
  for (const part of html.split(/(<[^>]+>)/)) {
    if (part === '<wbr>') breaks.push(text.length);
    else if (!part.startsWith('<')) text += part.replace(/&#x3C;/g, '<').replace(/&amp;/g, '&').replace(/&quot;/g, '"');
  }
  return { text, breaks };
}

const icuWords = new Intl.Segmenter('zh', { granularity: 'word' });
const wordStarts = (text: string) => new Set(Array.from(icuWords.segment(text), (segment) => segment.index));
const paragraphs = (html: string) => Array.from(html.matchAll(/<p[^>]*>([\s\S]*?)<\/p>/g), (match) => match[1]!);

describe('phrase breaks in the HTML', () => {
  it('puts breaks of a Chinese paragraph only where BudouX and ICU both see a boundary, and none in its last three characters', async () => {
    const { html } = await renderMarkdown('很多人问我为什么要辞职去旅行。我想说，人生不是为了满足别人的期待，人是为了自由而活。每天只需要 5 分。');
    const { text, breaks } = breakPoints(paragraphs(html)[0]!);
    assert.match(html, /<p [^>]*data-phrases/);
    assert.ok(breaks.length >= 8, `${breaks.length} breaks`);
    const phrases = new Set(new Parser(zhHansModel).parseBoundaries(text));
    const words = wordStarts(text);
    for (const offset of breaks) {
      assert.ok(phrases.has(offset) && words.has(offset), `break at ${text.slice(offset - 3, offset)}|${text.slice(offset, offset + 3)}`);
    }
    // The end "5 分。" is held: no break, and its space is a no-break space.
    assert.ok(Math.max(...breaks) <= text.length - 4, `last break before ${text.slice(Math.max(...breaks))}`);
    assert.ok(text.endsWith('5\u00a0分。'), text.slice(-6));
  });

  it('holds at least three letters on the last line, its punctuation not counted', async () => {
    // BudouX and ICU both end these on a two-letter word and a stop (焦虑。, 方法！, 成长。」).
    for (const markdown of ['我们常常因为别人的一句话而感到焦虑。', '这是我用了三年的学习方法！', '他说：「每一次失败都是成长。」']) {
      const { html } = await renderMarkdown(markdown);
      const { text, breaks } = breakPoints(paragraphs(html)[0]!);
      const lastLine = text.slice(Math.max(...breaks));
      assert.ok(lastLine.replace(/[\s\p{P}\u2060]/gu, '').length >= 3, `${markdown}: the last line could be ${JSON.stringify(lastLine)}`);
    }
    // Not a whole clause either: BudouX sees one phrase in 全部分享给你们, ICU the word 给你们 in it.
    const { html } = await renderMarkdown('摸索出一套适合新手的方法，今天全部分享给你们。');
    const { text, breaks } = breakPoints(paragraphs(html)[0]!);
    assert.ok(text.length - Math.max(...breaks) <= 6, `the held end is ${text.slice(Math.max(...breaks))}`);
  });

  it('holds a name with a middle dot, and what a dash joins, in the end together', async () => {
    // The page breaks beside a dash or a middle dot whatever word-break says: 安妮|·迪拉德, ——|我妈.
    const { html } = await renderMarkdown('你怎样度过一天，就怎样度过一生。——安妮·迪拉德\n\n挂掉电话以后，我在阳台上站了很久——我妈');
    const [quote, note] = paragraphs(html);
    assert.match(quote!, /安妮\u2060·\u2060迪拉德$/);
    assert.match(note!, /很久\u2060—\u2060—\u2060我妈$/);
  });

  it('holds a friendly close with a tilde and an emoji in the end together', async () => {
    // The page breaks before ～ and before an emoji: "～💬" and "💬" were left alone on the last line.
    const { html } = await renderMarkdown('你们有早起的习惯吗？评论区聊聊吧～💬\n\n今天也要加油鸭👨‍👩‍👧');
    const [close, family] = paragraphs(html);
    assert.match(close!, /聊聊吧\u2060～\u2060💬$/u);
    assert.match(family!, /加油鸭\u2060👨\u200d👩\u200d👧$/u, 'no joiner inside the emoji sequence');
  });

  it('never lets a line begin with a colon, comma, middle dot or separator bar, nor end with an opening bracket', async () => {
    // A <wbr> is obeyed even there: BudouX's boundaries before ：, ・ and ｜ drew "材料をそろえよう / ：強力粉".
    const { html } = await renderMarkdown(
      '## 材料をそろえよう：強力粉・イースト・塩・砂糖\n\n## よくある失敗（ふくらまない・かたい・パサつく）\n\n# 新手在家做手冲咖啡｜零失败攻略\n\n### 用户体验旅程图 [文档 - live editor]\n\n变量与类型：int、str、list 都是常用的类型，我们今天来学习。',
    );
    assert.doesNotMatch(html, /<wbr>[：、・｜）」]/u, 'a break before punctuation a line may not begin with');
    assert.doesNotMatch(html, /[（「\[]<wbr>/u, 'a break after an opening bracket');
    assert.match(html, /冲咖啡\u2060｜<wbr>零失败/, 'a line may end after the bar, and never begin with it');
  });

  it('keeps a 《title》, short emphasis and code whole, and leaves code blocks alone', async () => {
    const markdown = '《被讨厌的勇气》这本书告诉我，**小红书**上的 `npm install` 教程和 [读书笔记](https://example.com) 都值得一看，真的很有用。\n\n```js\nconst 中文变量 = "你好世界，这是代码";\n```';
    const { html } = await renderMarkdown(markdown);
    const paragraph = paragraphs(html)[0]!;
    assert.match(paragraph, /《被讨厌的勇气》/, 'no break inside the title');
    assert.match(paragraph, /<strong>(<wbr>)?小红书<\/strong>/);
    assert.match(paragraph, /<code>npm install<\/code>/);
    assert.match(paragraph, /<a href="https:\/\/example.com">读书笔记<\/a>/);
    // Inline code may still start or end a line.
    assert.match(paragraph, /<wbr><code>npm install<\/code><wbr>/);
    const code = html.slice(html.indexOf('<pre'));
    assert.doesNotMatch(code, /data-phrases/);
    assert.match(code, /中文变量/);
    assert.match(code, /你好世界，这是代码/);
  });

  it('adds no break where the page breaks anyway, holds punctuation in the end, and gives a heading\'s copy the same breaks', async () => {
    const { html } = await renderMarkdown('# 三个让你效率翻倍的小技巧和学习方法\n\n我们讨论了很久，终于在今天下午做出了最后的决定，好。');
    const paragraph = paragraphs(html)[0]!;
    assert.doesNotMatch(paragraph, /[，。]<wbr>/, 'no <wbr> after punctuation, where keep-all still breaks');
    assert.match(paragraph, /，\u2060好。$/, 'the held end does not break after its comma');
    const [, dataText, content] = html.match(/<h1 data-text="([^"]*)"[^>]*>([\s\S]*?)<\/h1>/)!;
    assert.match(content!, /<wbr>/);
    assert.equal(dataText!.replace(/\u200b/g, '<wbr>'), content, 'data-text breaks where the heading does');
  });

  it('joins hard-wrapped CJK lines before breaking them into phrases', async () => {
    const { html } = await renderMarkdown('我们通常\n就是这样写作的，一行一行地写下去。');
    assert.match(breakPoints(paragraphs(html)[0]!).text, /我们通常就是这样写作的/);
  });

  it('reads a Japanese document as Japanese, its all-kanji heading too', async () => {
    // Read as Chinese, the heading would break at 日本国|憲法|第九条|改正論議; as Japanese it is one phrase.
    const { html } = await renderMarkdown('# 日本国憲法第九条改正論議\n\nすべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等である。');
    assert.match(html, /<h1 [^>]*data-phrases[^>]*>日本国憲法第九条改正論議<\/h1>/);
    const p = breakPoints(paragraphs(html)[0]!);
    const phrases = new Set(new Parser(jaModel).parseBoundaries(p.text));
    assert.ok(p.breaks.length >= 4 && p.breaks.every((offset) => phrases.has(offset)), `breaks at ${p.breaks}`);
    const { html: chinese } = await renderMarkdown('# 日本国憲法第九条改正论议\n\n我们今天讨论这个问题，大家都很关心。');
    assert.match(chinese, /<h1 [^>]*>日本国<wbr>/, 'the same heading in a Chinese document breaks as Chinese');
  });

  it('touches no document without Chinese, Japanese or Korean', async () => {
    const markdown = '# Hello\n\nA paragraph in English, with `code` and **bold**, ending in a short word: it.';
    const { html } = await renderMarkdown(markdown);
    assert.doesNotMatch(html, /<wbr>|data-phrases|\u00a0/);
  });

  it('keeps Korean words whole, in an English paragraph too, and holds a Korean paragraph\'s last words together', async () => {
    const { html } = await renderMarkdown('Biome은 JavaScript와 TypeScript를 위한 도구입니다.\n\n이 도구는 코드를 빠르게 검사할 수 있다');
    assert.doesNotMatch(html, /<wbr>|data-phrases/);
    // Mostly Latin, the first paragraph's Korean runs are drawn upright in spans of their own (cjk-upright.ts), which do not break a word.
    assert.match(html.replace(/<\/?span[^>]*>/g, ''), /<p [^>]*data-korean[^>]*>Biome은/);
    assert.match(html, /검사할 수\u00a0있다<\/p>/);
  });
});

describe('phrase breaks of a cover', () => {
  it('never breaks inside a keyword and holds the end together', () => {
    const html = textHtml([{ text: '三个月做到' }, { text: '小红书', mark: true }, { text: '万粉的读书笔记 AI' }]);
    assert.match(html, /<mark>小红书<\/mark>/);
    const { text, breaks } = breakPoints(html);
    assert.ok(breaks.length >= 2, html);
    assert.ok(text.endsWith('笔记\u00a0AI') || !breaks.some((offset) => offset > text.length - 4), html);
    assert.equal(textHtml('Plain <English> title'), 'Plain &lt;English&gt; title');
  });

  it('sizes a title so its widest unbreakable piece fits a line', () => {
    const width = 360;
    const size = titleSize('《一本书名很长很长的书籍》读后感', width, 400, 0.2);
    assert.ok(size * 13 <= width, `${size} px: 《一本书名很长很长的书籍》 is 13 em wide`);
    assert.equal(titleSize('自由', width, 400, 0.2), Math.round(width * 0.2), 'a short title keeps its size');
  });
});
