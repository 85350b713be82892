// The documentation tells the truth about the code: every request field of the schema is in
// docs/api.md's field table with the type, default, bounds and null/"" behaviour the code has;
// every error label is in the error table with its status; every environment variable the
// configuration reads is documented with its default and bounds; links into docs/ land on a
// heading; and no source file cites a document that lives outside the repository.
// Fast and without a browser: it reads files and calls the request model directly.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkRequest } from '../src/cards/request/check.js';
import { GenerateBody, requestDefaults } from '../src/cards/request/schema.js';
import { defaultThemeId } from '../src/cards/themes/registry.js';
import { statusOfLabel } from '../src/http/http-errors.js';

type Json = any;

// The repository itself, not the mirror the compiled tests run from (scripts/compile-tests.mjs),
// whose src/ and test/ also hold the compiled JavaScript.
const root = path.dirname(fs.realpathSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'package.json')));
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const apiDoc = read('docs/api.md');
const readme = read('README.md');

/** The text of a `## Title` section, up to the next heading of the same level. */
function section(markdown: string, title: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === `## ${title}`);
  assert.ok(start >= 0, `the section "## ${title}" exists`);
  const end = lines.findIndex((line, index) => index > start && /^## /.test(line));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** Rows of the Markdown tables in `text` whose first cell is `` `name` ``, as arrays of cells. */
function tableRows(text: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = /^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (!match) continue;
    rows.set(match[1]!, match[2]!.split('|').map((cell) => cell.trim()));
  }
  return rows;
}

/** A number as the docs may write it: `100000` or `100,000`. */
const numberForms = (value: number) => [String(value), value.toLocaleString('en-US')];
const mentionsNumber = (cell: string, value: number) => numberForms(value).some((form) => new RegExp(`(^|[^\\d,])${form.replace(/[.,]/g, '\\$&')}(?![\\d,])`).test(cell));
const mentionsRange = (cell: string, min: number, max: number) =>
  numberForms(min).some((low) => numberForms(max).some((high) => cell.includes(`${low}–${high}`)));

/** The non-null branch of a `value or null` field. */
const valueBranch = (property: Json): Json => (property.anyOf ? property.anyOf.find((branch: Json) => branch.type !== 'null') : property);
/** The values of a field that is one of a list, or undefined. */
const listedValues = (branch: Json): unknown[] | undefined => branch.anyOf?.map((literal: Json) => literal.const);

describe('docs/api.md#request-fields', () => {
  const rows = tableRows(section(apiDoc, 'Request fields'));
  const fields = Object.entries(GenerateBody.properties as Record<string, Json>);
  const defaults: Record<string, unknown> = { ...requestDefaults, theme: defaultThemeId };
  const columns = ['type', 'default', 'bounds', 'null', 'empty', 'meaning'] as const;
  const cellsOf = (field: string) => {
    const cells = rows.get(field);
    assert.ok(cells, `docs/api.md's request-field table has a row for \`${field}\``);
    assert.equal(cells.length, columns.length, `the row of \`${field}\` has the columns ${columns.join(', ')}`);
    return Object.fromEntries(columns.map((column, index) => [column, cells[index]!])) as Record<(typeof columns)[number], string>;
  };

  it('documents no field the schema does not have', () => {
    for (const field of rows.keys()) assert.ok(field in GenerateBody.properties, `\`${field}\` is documented but not in GenerateBody`);
  });

  for (const [field, property] of fields) {
    it(`documents ${field} as the code has it`, () => {
      const cells = cellsOf(field);
      const branch = valueBranch(property);
      const values = listedValues(branch);
      const type = values ? typeof values[0] : branch.type;
      assert.equal(cells.type, type, `type of ${field}`);

      const value = defaults[field];
      if (value === undefined) assert.ok(cells.default.length > 0, `${field} says what its absence means`);
      else if (typeof value === 'number') assert.ok(cells.default.includes(`\`${value}\``), `default of ${field} is \`${value}\`; the row says ${cells.default}`);
      else if (typeof value === 'boolean') assert.ok(cells.default.includes(`\`${value}\``), `default of ${field} is \`${value}\``);
      else {
        const forms = [`\`${String(value)}\``, `\`${JSON.stringify(value)}\``];
        assert.ok(forms.some((form) => cells.default.includes(form)), `default of ${field} is ${JSON.stringify(value)}; the row says ${cells.default}`);
      }

      if (branch.minimum !== undefined || branch.maximum !== undefined) {
        assert.ok(mentionsRange(cells.bounds, branch.minimum, branch.maximum), `bounds of ${field} are ${branch.minimum}–${branch.maximum}; the row says ${cells.bounds}`);
      }
      if (branch.maxLength !== undefined) assert.ok(mentionsNumber(cells.bounds, branch.maxLength), `${field} is at most ${branch.maxLength} long; the row says ${cells.bounds}`);
      // "" is the blank a string field may be left with, not one of its values.
      for (const listed of (values ?? []).filter((value) => value !== '')) assert.ok(cells.bounds.includes(`\`${String(listed)}\``), `${field} accepts \`${String(listed)}\``);
    });

    it(`documents what null and "" mean for ${field}`, () => {
      const cells = cellsOf(field);
      const outcome = (body: object) => {
        try {
          return JSON.stringify(checkRequest(body).request) === JSON.stringify(checkRequest({}).request) ? 'default' : 'a value';
        } catch {
          return '400';
        }
      };
      assert.equal(cells.null, outcome({ [field]: null }), `null for ${field}`);
      assert.equal(cells.empty, outcome({ [field]: '' }), `"" for ${field}`);
    });
  }

  it('matches the README on every field', () => {
    const table = section(readme, 'Generate a card');
    for (const [field] of fields) assert.ok(table.includes(`\`${field}\``), `README's request fields mention \`${field}\``);
  });
});

describe('docs/api.md#errors', () => {
  const rows = tableRows(section(apiDoc, 'Errors'));
  const labels = Object.entries(statusOfLabel);

  for (const [label, status] of labels) {
    it(`documents ${label} with status ${status}`, () => {
      const cells = rows.get(label);
      assert.ok(cells, `the error table has a row for \`${label}\``);
      assert.equal(cells[0], String(status));
      assert.ok((cells[1] ?? '').length > 0, `the row of ${label} says when it is answered`);
      assert.ok(new RegExp(`^\\|\\s*${status}\\s*\\|\\s*\`${label}\``, 'm').test(readme), `README's error table has ${status} \`${label}\``);
    });
  }

  it('documents no label the service does not answer', () => {
    for (const label of rows.keys()) assert.ok(label in statusOfLabel, `\`${label}\` is documented but not in http-errors.ts`);
  });
});

/** Every variable the configuration reads, with what the code says about it. */
function configVariables(): Array<{ name: string; fallback?: number | string; min?: number; max?: number; allowed?: string[] }> {
  const source = read('src/config.ts') + read('src/cards/storage/s3-config.ts');
  const arithmetic = (expression: string): number | undefined =>
    /^[\d_\s*+]+$/.test(expression) ? expression.replace(/_/g, '').split('+').reduce((sum, term) => sum + term.split('*').reduce((product, factor) => product * Number(factor), 1), 0) : undefined;
  const found = new Map<string, ReturnType<typeof configVariables>[number]>();
  for (const match of source.matchAll(/\b(integer|text|oneOf)\('([A-Z0-9_]+)'([^;\n]*)/g)) {
    const [, reader, name, rest] = match as unknown as [string, string, string, string];
    const entry: ReturnType<typeof configVariables>[number] = found.get(name) ?? { name };
    if (reader === 'integer') {
      const args = /^,\s*([^,]+),\s*([^,]+),\s*([^)]+)\)/.exec(rest);
      assert.ok(args, `integer('${name}', fallback, min, max) is parsed`);
      entry.fallback = arithmetic(args[1]!.trim());
      entry.min = arithmetic(args[2]!.trim());
      entry.max = arithmetic(args[3]!.trim());
    }
    if (reader === 'oneOf') {
      const args = /^,\s*\[([^\]]*)\](?:\s*as const)?,\s*([^)]*)\)/.exec(rest);
      assert.ok(args, `oneOf('${name}', [...], fallback) is parsed`);
      entry.allowed = [...args[1]!.matchAll(/'([^']+)'/g)].map((value) => value[1]!);
      entry.fallback = [...args[2]!.matchAll(/'([^']+)'/g)].at(-1)?.[1];
    }
    found.set(name, entry);
  }
  return [...found.values()];
}

describe('docs/api.md#configuration', () => {
  const rows = tableRows(section(apiDoc, 'Configuration'));
  const variables = configVariables();

  it('finds the variables the configuration reads', () => {
    assert.ok(variables.length >= 30, `found ${variables.length}`);
    for (const name of ['PORT', 'STORAGE', 'S3_BUCKET', 'REQUEST_TIMEOUT_MS', 'LOG_LEVEL']) assert.ok(variables.some((v) => v.name === name), name);
  });

  for (const variable of variables) {
    it(`documents ${variable.name}`, () => {
      const cells = rows.get(variable.name);
      assert.ok(cells, `the configuration table has a row for \`${variable.name}\``);
      const [defaultCell = '', boundsCell = ''] = cells;
      if (typeof variable.fallback === 'number') assert.ok(mentionsNumber(defaultCell, variable.fallback), `default of ${variable.name} is ${variable.fallback}; the row says ${defaultCell}`);
      if (typeof variable.fallback === 'string') assert.ok(defaultCell.includes(`\`${variable.fallback}\``), `default of ${variable.name} is ${variable.fallback}`);
      if (variable.min !== undefined && variable.max !== undefined) {
        assert.ok(mentionsRange(boundsCell, variable.min, variable.max), `bounds of ${variable.name} are ${variable.min}–${variable.max}; the row says ${boundsCell}`);
      }
      for (const allowed of variable.allowed ?? []) assert.ok(boundsCell.includes(`\`${allowed}\``), `${variable.name} accepts \`${allowed}\``);
      assert.ok(section(readme, 'Configuration').includes(`\`${variable.name}\``), `README's configuration table mentions \`${variable.name}\``);
    });
  }

  it('documents no variable the configuration does not read', () => {
    for (const name of rows.keys()) assert.ok(variables.some((v) => v.name === name), `\`${name}\` is documented but not read in src/config.ts`);
  });
});

/** Files of the repository's own code and assets, as text. */
function sourceFiles(): string[] {
  const textFile = /\.(ts|js|mjs|cjs|css|html|md|json|txt|sh)$/;
  const walk = (dir: string): string[] =>
    fs.existsSync(path.join(root, dir))
      ? fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
          const relative = path.join(dir, entry.name);
          if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'results' ? [] : walk(relative);
          return textFile.test(entry.name) ? [relative] : [];
        })
      : [];
  return ['src', 'themes', 'web', 'test', 'bench', 'scripts', 'bin'].flatMap(walk);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = !inFence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

describe('references to the documentation', () => {
  it('cite no document from outside the repository', () => {
    const outside = [['PRODUCT', 'md'], ['DESIGN', 'md']].map((parts) => parts.join('.')).concat(['research' + '/', 'card-service' + '-spec', 'spec ' + '§']);
    const offenders = sourceFiles().flatMap((file) => {
      const text = read(file);
      return outside.filter((name) => text.includes(name)).map((name) => `${file} mentions ${name}`);
    });
    assert.deepEqual(offenders, []);
  });

  it('land on a heading: docs/<file>.md#<anchor> in code, and links between the docs', () => {
    const broken: string[] = [];
    const check = (from: string, file: string, anchor: string) => {
      const target = path.join(root, file);
      if (!fs.existsSync(target)) broken.push(`${from}: ${file} does not exist`);
      else if (!anchorsOf(fs.readFileSync(target, 'utf8')).has(anchor)) broken.push(`${from}: ${file} has no heading #${anchor}`);
    };
    for (const file of [...sourceFiles(), 'README.md']) {
      for (const match of read(file).matchAll(/\bdocs\/([\w-]+\.md)#([\w-]+)/g)) check(file, `docs/${match[1]}`, match[2]!);
    }
    for (const name of fs.readdirSync(path.join(root, 'docs')).filter((entry) => entry.endsWith('.md'))) {
      const file = `docs/${name}`;
      for (const match of read(file).matchAll(/\]\(([\w-]+\.md)?#([^)\s]+)\)/g)) check(file, match[1] ? `docs/${match[1]}` : file, match[2]!);
    }
    assert.deepEqual(broken, []);
  });
});
