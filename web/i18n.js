// The page's language: English or Simplified Chinese, chosen from the browser's languages,
// switchable in the top bar and remembered in this browser (localStorage). The English text is
// the key: the page is written in English, and translate() swaps every text and label that has a
// translation; messages built in code go through t(). The API's own error messages stay English
// (they are the API's contract); the page's words around them are translated.

const storageKey = 'cardwright.language';
export const languages = ['en', 'zh'];

/** `{name}` in a text is filled from `params`. */
const zh = {
  // Top bar and sections
  'cardwright · Markdown to card images': 'cardwright · Markdown 转卡片图片',
  'Skip to the editor': '跳到编辑器',
  'cardwright home': 'cardwright 首页',
  'Markdown in, beautiful cards out.': '写 Markdown，出精美卡片。',
  Sections: '版块',
  Write: '写作',
  Preview: '预览',
  Style: '样式',
  Generate: '生成',
  Language: '语言',
  // Editor
  Markdown: 'Markdown 文本',
  Sample: '示例',
  '{count} / {max}': '{count} / {max} 字',
  // Preview
  Zoom: '缩放',
  Fit: '适应',
  'Card preview': '卡片预览',
  '{count} card · {width}×{height} · {ms} ms': '{count} 张卡片 · {width}×{height} · {ms} 毫秒',
  '{count} cards · {width}×{height} · {ms} ms': '{count} 张卡片 · {width}×{height} · {ms} 毫秒',
  'Busy, retrying in {seconds} s': '服务繁忙，{seconds} 秒后重试',
  'Not updated': '未更新',
  'The service cannot be reached': '无法连接服务',
  // Theme
  'Card settings': '卡片设置',
  Theme: '主题',
  'Filter themes': '筛选主题',
  'Filter themes by name or ID': '按名称或 ID 筛选主题',
  Mode: '模式',
  'This theme has no modes.': '此主题没有模式。',
  'of {name}': '（{name}）',
  '{count} theme': '{count} 个主题',
  '{count} themes': '{count} 个主题',
  '{shown} of {total}': '{shown} / {total}',
  'no modes': '无模式',
  custom: '自定义',
  'Use {mode}': '使用 {mode}',
  'The themes could not be loaded: {message}': '主题加载失败：{message}',
  // Size
  Size: '尺寸',
  'Size presets': '尺寸预设',
  Width: '宽',
  Height: '高',
  '{id}, {width} by {height}': '{id}，{width} × {height}',
  // Layout
  Layout: '版式',
  'Split mode': '拆分方式',
  'Long card': '长图',
  'One card that grows with the content.': '一张卡片，随内容变长。',
  'Auto split': '自动拆分',
  'As many cards of the chosen size as the content needs.': '按所选尺寸，内容需要几张就拆几张。',
  'Split at ---': '按 --- 拆分',
  'A new card at every horizontal rule.': '每条分隔线开始一张新卡片。',
  'Clip overflow': '裁掉溢出',
  'Cards are exactly the chosen height; what does not fit is cut off.': '卡片严格为所选高度，放不下的内容被裁掉。',
  MDX: 'MDX 组件',
  'Components such as': '支持组件，如',
  '; no JavaScript.': '；不运行 JavaScript。',
  'Body font': '正文字体',
  "Theme's own": '主题默认',
  'Sans (Noto Sans SC)': '黑体（思源黑体）',
  'Serif (Noto Serif SC)': '宋体（思源宋体）',
  'Kai (LXGW WenKai)': '楷体（霞鹜文楷）',
  'Rounded (ZCOOL KuaiLe)': '圆体（站酷快乐体）',
  'Mono (JetBrains Mono)': '等宽（JetBrains Mono）',
  'Hand-drawn (Comic Neue)': '手写（Comic Neue / 马善政）',
  'Hashtags as chips': '话题标签',
  '#word becomes a tag chip.': '#话题 显示为标签。',
  // Creator panel
  'Cover and signature': '封面与署名',
  'Written into the front matter at the top of the Markdown.': '写入 Markdown 顶部的 front matter。',
  'Cover card': '封面卡片',
  'A first card with the title, subtitle, author and tags.': '第一张卡片：标题、副标题、作者和标签。',
  Signature: '署名',
  'Your name and handle in the footer of every card.': '每张卡片页脚显示你的名字和账号。',
  Title: '标题',
  Subtitle: '副标题',
  Author: '作者',
  Handle: '账号',
  'Avatar URL': '头像地址',
  Tags: '标签',
  'comma-separated': '用逗号分隔',
  Date: '日期',
  'Closing card': '结尾卡片',
  'e.g. Follow for more': '例如：关注我，看更多',
  Watermark: '水印',
  'on every card, the cover too': '每张卡片上，封面也有',
  Position: '位置',
  'Bottom right': '右下角',
  'Bottom left': '左下角',
  'Top right': '右上角',
  'Top left': '左上角',
  Centre: '居中',
  Tiled: '平铺',
  Opacity: '不透明度',
  // Generate
  Format: '格式',
  Scale: '倍率',
  'API key': 'API 密钥',
  'kept in this browser only': '只保存在本浏览器',
  Show: '显示',
  Hide: '隐藏',
  'Generate images': '生成图片',
  'Generating…': '生成中…',
  'Or press': '或在编辑器中按',
  'in the editor.': '。',
  'Generated images': '生成的图片',
  'Enter your API key to generate images. The service prints it on its first start; it is also in data/api-keys.txt.':
    '请输入 API 密钥再生成图片。服务首次启动时会打印密钥，也保存在 data/api-keys.txt 中。',
  'The service cannot be reached. Check that it is running, then try again.': '无法连接服务。请确认服务正在运行，然后重试。',
  '{count} image in {seconds} s. Links are public.': '{count} 张图片，用时 {seconds} 秒。链接可公开访问。',
  '{count} images in {seconds} s. Links are public.': '{count} 张图片，用时 {seconds} 秒。链接可公开访问。',
  'Card {index} of {total}': '第 {index} 张，共 {total} 张',
  Download: '下载',
  'Alt text': '替代文字',
  'Copy alt text': '复制替代文字',
  Open: '打开',
  'PDF document': 'PDF 文档',
  'Download all (ZIP)': '全部下载（ZIP）',
  'Download as PDF': '下载 PDF',
  'Packing {count} images…': '正在打包 {count} 张图片…',
  'Making the PDF…': '正在生成 PDF…',
  'The images could not be downloaded: {message}': '图片下载失败：{message}',
  'The service answered {status}: {message}': '服务返回 {status}：{message}',
  'The service says: {message}': '服务提示：{message}',
  // API request
  'API request': 'API 请求',
  'Copy as cURL': '复制为 cURL',
  'Copy JSON body': '复制 JSON 请求体',
  'cURL command for the current settings': '当前设置的 cURL 命令',
  '{what} copied.': '已复制{what}。',
  'cURL command (set CARDWRIGHT_API_KEY to your key)': ' cURL 命令（请把 CARDWRIGHT_API_KEY 设为你的密钥）',
  'JSON body': ' JSON 请求体',
  'The editor needs JavaScript. The API works without it: see': '编辑器需要 JavaScript。API 无需 JavaScript：见',
  'and POST /api/generate.': '和 POST /api/generate。',
};

const dictionaries = { en: {}, zh };

/** The remembered choice, else the first of the browser's languages this page speaks. */
function chooseLanguage() {
  try {
    const saved = localStorage.getItem(storageKey);
    if (languages.includes(saved)) return saved;
  } catch {
    // No storage (private browsing): go by the browser.
  }
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (base === 'zh') return 'zh';
    if (base === 'en') return 'en';
  }
  return 'en';
}

export const language = chooseLanguage();

/** Remembers `next` and shows the page in it. */
export function switchLanguage(next) {
  try {
    localStorage.setItem(storageKey, next);
  } catch {
    // Not remembered, but still switched for this visit.
  }
  location.reload();
}

/** The text in the page's language, `{name}` filled from `params`. */
export function t(text, params = {}) {
  const template = dictionaries[language][text] ?? text;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** `text` with `{count}`, choosing the singular template for 1 (English); Chinese has one form. */
export const tCount = (singular, plural, params) => t(params.count === 1 ? singular : plural, params);

const skipped = new Set(['CODE', 'KBD', 'PRE', 'TEXTAREA', 'SCRIPT', 'STYLE', 'IFRAME']);
const translatedAttributes = ['placeholder', 'aria-label', 'title', 'alt'];

/** Translates every text and label under `root` that has a translation (code and the editor stay as written). */
export function translate(root = document.documentElement) {
  if (language === 'en') return;
  document.documentElement.lang = 'zh-CN';
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  for (let node = walker.currentNode; node; node = walker.nextNode()) {
    if (node.nodeType === Node.ELEMENT_NODE) {
      for (const name of translatedAttributes) {
        const value = node.getAttribute(name);
        if (value && zh[value.trim()]) node.setAttribute(name, zh[value.trim()]);
      }
      continue;
    }
    if (skipped.has(node.parentElement?.tagName)) continue;
    const text = node.nodeValue.trim();
    if (text && zh[text]) node.nodeValue = node.nodeValue.replace(text, zh[text]);
  }
  document.title = t(document.title);
}
