// Which code blocks are drawn unwrapped, their type scaled to their widest line
// (src/cards/markdown/code-wrap.ts): box drawings and console output in aligned columns, never
// ordinary code.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alignedLineWidth } from '../src/cards/markdown/code-wrap.js';

describe('blocks drawn in aligned columns', () => {
  it('are box drawings, long listings and tables of spaced columns', () => {
    assert.ok(alignedLineWidth('┌──┬──┐\n│a │b │\n└──┴──┘') !== undefined);
    assert.ok(alignedLineWidth('drwxr-xr-x  2 root root 4096 node_modules\n-rw-r--r--  1 root root 120 package.json') !== undefined);
    assert.ok(alignedLineWidth('NAME      READY   STATUS\nweb-1     1/1     Running\nweb-2     0/1     Pending') !== undefined);
  });

  it('are not code whose lines end in comments set apart by two spaces', () => {
    // budoux's README: drawn unwrapped, its type was scaled to 5 px to fit its longest line.
    const budoux = [
      "import { Parser } from 'budoux';",
      '',
      'const model = JSON.parse(\'{"UW4": {"a": 133}}\');  // Content of the custom model JSON file.',
      '',
      'const parser = new Parser(model);',
      '',
      "parser.parse('xyzabc');  // ['xyz', 'abc']",
    ].join('\n');
    assert.equal(alignedLineWidth(budoux), undefined);
    const python = 'x = load()  # the data\ny = x * 2  # doubled\nprint(y)  # out';
    assert.equal(alignedLineWidth(python), undefined);
  });
});
