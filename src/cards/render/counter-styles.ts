// The characters the browser draws for list numbers in CSS's predefined counter styles beyond
// Latin-1 (`counter(list-item, cjk-decimal)` in traditional-chinese.css): they are in no markup
// and in no stylesheet, so a page would not know to declare their faces (page-fonts.ts), and a
// fourth item numbered 四 came out as an empty box where the first three (一二三, which the text
// happened to hold) were drawn. Characters from CSS Counter Styles Level 3's definitions, with the
// suffix each style writes after the number and its negative sign.

const chineseInformalDigits = '零一二三四五六七八九十百千';

const charactersByStyle: Record<string, string> = {
  'cjk-decimal': '〇一二三四五六七八九、',
  'cjk-ideographic': `${chineseInformalDigits}萬負、`,
  'trad-chinese-informal': `${chineseInformalDigits}萬負、`,
  'trad-chinese-formal': '零壹貳參肆伍陸柒捌玖拾佰仟萬負、',
  'simp-chinese-informal': `${chineseInformalDigits}万负、`,
  'simp-chinese-formal': '零壹贰叁肆伍陆柒捌玖拾佰仟万负、',
  'japanese-informal': '〇一二三四五六七八九十百千万マイナス、',
  'japanese-formal': '零壱弐参四伍六七八九拾百阡萬マイナス、',
  'korean-hangul-formal': '영일이삼사오육칠팔구십백천만마이너스, ',
  'korean-hanja-informal': '零一二三四五六七八九十百千萬마이너스, ',
  'korean-hanja-formal': '零壹貳參四五六七八九拾百阡萬마이너스, ',
  'cjk-earthly-branch': '子丑寅卯辰巳午未申酉戌亥、',
  'cjk-heavenly-stem': '甲乙丙丁戊己庚辛壬癸、',
  hiragana: 'あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわゐゑをん、',
  'hiragana-iroha': 'いろはにほへとちりぬるをわかよたれそつねならむうゐのおくやまけふこえてあさきゆめみしゑひもせす、',
  katakana: 'アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヰヱヲン、',
  'katakana-iroha': 'イロハニホヘトチリヌルヲワカヨタレソツネナラムウヰノオクヤマケフコエテアサキユメミシヱヒモセス、',
  'lower-greek': 'αβγδεζηθικλμνξοπρστυφχψω',
  hebrew: 'אבגדהוזחטיךכלםמןנסעףפץצקרשת',
  'arabic-indic': '٠١٢٣٤٥٦٧٨٩',
  persian: '۰۱۲۳۴۵۶۷۸۹',
  devanagari: '०१२३४५६७८९',
  bengali: '০১২৩৪৫৬৭৮৯',
  thai: '๐๑๒๓๔๕๖๗๘๙',
};

/** Where CSS names a counter style: `counter(name, style)`, `counters(name, "x", style)`, `list-style(-type): … style …`. */
const styleNamed = /\bcounters?\(([^)]*)\)|\blist-style(?:-type)?\s*:([^;}]*)/gi;

/** The characters the predefined counter styles that `css` uses draw, beyond what the text itself holds. */
export function counterStyleCharacters(css: string): string {
  let characters = '';
  for (const [, counterArguments, listStyle] of css.matchAll(styleNamed)) {
    for (const word of (counterArguments ?? listStyle ?? '').toLowerCase().split(/[\s,]+/)) characters += charactersByStyle[word] ?? '';
  }
  return characters;
}
