// mdxMode: MDX syntax with a fixed set of components and literal props, and nothing evaluated.
// remark-mdx parses JSX, expressions and import/export into the tree; this step refuses every
// expression, import and export (naming where it is and how to escape it), checks each element
// against the components below, validates every prop value (no CSS can be smuggled through a
// prop), and turns the element into plain HTML that still goes through the sanitizer.
import type { Root as MdastRoot, Nodes as MdastNodes, Parents as MdastParents, Paragraph, RootContent } from 'mdast';
import type { MdxJsxAttribute, MdxJsxExpressionAttribute, MdxJsxFlowElement, MdxJsxTextElement } from 'mdast-util-mdx-jsx';
import { find, html } from 'property-information';
import { visit, SKIP } from 'unist-util-visit';
import { invalidRequest } from '../errors.js';
import { cssColour, cssFontFamily, cssLength, fontSize, PropError } from './mdx-prop-values.js';
import { sanitizeSchema } from './sanitize-schema.js';

type JsxElement = MdxJsxFlowElement | MdxJsxTextElement;
type Props = Record<string, string | true>;

interface Component {
  props: Record<string, string>;
  /** Components that lay out blocks; on a line of their own they are not wrapped in a paragraph. */
  block: boolean;
  toHtml(props: Props, element: JsxElement): { tagName: string; className: string[]; style?: string };
}

const calloutTypes = ['note', 'tip', 'warning', 'danger'] as const;

/** The components of mdxMode. Keep README.md's component table in step with this one. */
const components: Record<string, Component> = {
  font: {
    props: { size: '1–7 (HTML sizes) or a size such as 20, 20px, 1.2em', color: 'a CSS colour such as green or #0a7', face: 'font family names, comma separated' },
    block: false,
    toHtml: (props) => ({
      tagName: 'span',
      className: ['mdx-font'],
      style: declarations({
        'font-size': props.size === undefined ? undefined : fontSize(text(props, 'size')),
        color: props.color === undefined ? undefined : cssColour(text(props, 'color')),
        'font-family': props.face === undefined ? undefined : cssFontFamily(text(props, 'face')),
      }),
    }),
  },
  Columns: {
    props: {},
    block: true,
    toHtml: (_props, element) => ({ tagName: 'div', className: ['columns', `columns-${columnCount(element)}`] }),
  },
  Column: { props: {}, block: true, toHtml: () => ({ tagName: 'div', className: ['column'] }) },
  Callout: {
    props: { type: calloutTypes.join(' | '), title: 'any text' },
    block: true,
    toHtml: (props) => {
      const type = props.type === undefined ? 'note' : text(props, 'type');
      if (!(calloutTypes as readonly string[]).includes(type)) throw new PropError('type', type, calloutTypes.join(', '));
      return { tagName: 'div', className: ['callout', `callout-${type}`] };
    },
  },
  Badge: {
    props: { color: 'a CSS colour' },
    block: false,
    toHtml: (props) => ({ tagName: 'span', className: ['badge'], style: declarations({ '--badge-color': optionalColour(props) }) }),
  },
  Highlight: {
    props: { color: 'a CSS colour' },
    block: false,
    toHtml: (props) => ({ tagName: 'mark', className: ['highlight'], style: declarations({ '--highlight-color': optionalColour(props) }) }),
  },
  Center: { props: {}, block: true, toHtml: () => ({ tagName: 'div', className: ['center'] }) },
  Spacer: {
    props: { size: 'a height such as 24, 24px or 2em (0–400 px)' },
    block: true,
    toHtml: (props) => ({ tagName: 'div', className: ['spacer'], style: declarations({ height: props.size === undefined ? '16px' : cssLength(text(props, 'size'), 400) }) }),
  },
};

export const componentNames = Object.keys(components);
const htmlElements = new Set(sanitizeSchema.tagNames ?? []);

/** remark (after remark-mdx): validates the MDX tree and maps its JSX to HTML elements. */
export function remarkSafeMdx() {
  return (tree: MdastRoot) => {
    unwrapBlockComponents(tree);
    visit(tree, (node: MdastNodes, _index, parent) => {
      switch (node.type) {
        case 'mdxjsEsm':
          throw invalidRequest(
            `mdxMode does not run import or export statements (line ${where(node)}); nothing in a document is ever evaluated. ` +
              'Remove the line, or put it in backticks to show it as text.',
          );
        case 'mdxFlowExpression':
        case 'mdxTextExpression':
          throw expressionError(`{${node.value}}`, node);
        case 'mdxJsxFlowElement':
        case 'mdxJsxTextElement':
          toHtmlElement(node, parent);
          return undefined;
        default:
          return undefined;
      }
    });
  };
}

function toHtmlElement(element: JsxElement, parent: MdastParents | undefined): void {
  const name = element.name;
  if (name === null) {
    // A fragment `<>…</>` groups without adding anything.
    element.data = { hName: element.type === 'mdxJsxFlowElement' ? 'div' : 'span' };
    return;
  }
  const props = literalProps(element);
  const component = Object.hasOwn(components, name) ? components[name] : undefined;
  if (component) {
    if (name === 'Column' && !(parent && 'name' in parent && parent.name === 'Columns')) {
      throw invalidRequest(`<Column> at line ${where(element)} must be inside <Columns>: <Columns><Column>…</Column><Column>…</Column></Columns>.`);
    }
    for (const prop of Object.keys(props)) {
      if (!Object.hasOwn(component.props, prop)) {
        const accepted = Object.keys(component.props);
        throw invalidRequest(
          `<${name}> at line ${where(element)} has no prop "${prop}"; ` +
            (accepted.length ? `it accepts ${accepted.map((p) => `${p} (${component.props[p]})`).join(', ')}.` : 'it takes no props.'),
        );
      }
    }
    try {
      const { tagName, className, style } = component.toHtml(props, element);
      element.data = { hName: tagName, hProperties: { className, ...(style ? { style } : {}) } };
    } catch (error) {
      if (!(error instanceof PropError)) throw error;
      throw invalidRequest(
        `<${name}> at line ${where(element)}: ${error.prop}=${JSON.stringify(error.value === true ? '' : error.value)} is not accepted; use ${error.accepted}.`,
      );
    }
    if (name === 'Callout') addCalloutTitle(element, props);
    return;
  }
  if (htmlElements.has(name)) {
    const properties: Record<string, string | true | string[]> = {};
    for (const [attribute, value] of Object.entries(props)) {
      const property = find(html, attribute === 'className' ? 'class' : attribute).property;
      properties[property] = property === 'className' && typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : value;
    }
    element.data = { hName: name, hProperties: properties };
    return;
  }
  throw invalidRequest(
    `Unknown MDX component <${name}> at line ${where(element)}. Known components: ${componentNames.map((c) => `<${c}>`).join(', ')}, ` +
      `and safe HTML elements such as <div>, <span>, <p>, <img>, <table>. To show "<${name}>" as text, write \\<${name}> or put it in backticks.`,
  );
}

/** Props as written; only literal strings (or bare boolean props) are accepted, never `{…}`. */
function literalProps(element: JsxElement): Props {
  const props: Props = {};
  for (const attribute of element.attributes as (MdxJsxAttribute | MdxJsxExpressionAttribute)[]) {
    if (attribute.type === 'mdxJsxExpressionAttribute') throw expressionError(`{${attribute.value}}`, attribute, `in <${element.name}>`);
    if (attribute.value !== null && attribute.value !== undefined && typeof attribute.value !== 'string') {
      throw invalidRequest(
        `<${element.name}> at line ${where(attribute)}: ${attribute.name}={${attribute.value.value}} is an expression, and mdxMode never evaluates one. ` +
          `Write the value as a literal string: ${attribute.name}="${attribute.value.value.replace(/^['"]|['"]$/g, '')}".`,
      );
    }
    props[attribute.name] = attribute.value ?? true;
  }
  return props;
}

/**
 * Block components written on lines of their own inside a paragraph (`<Column>One</Column>` on
 * consecutive lines) are parsed as a paragraph holding them; lift them out to block level.
 */
function unwrapBlockComponents(tree: MdastRoot): void {
  visit(tree, 'paragraph', (paragraph: Paragraph, index, parent) => {
    if (!parent || index === undefined) return;
    const meaningful = paragraph.children.filter((child) => !(child.type === 'text' && child.value.trim() === ''));
    const allBlocks = meaningful.every((child) => child.type === 'mdxJsxTextElement' && child.name !== null && components[child.name]?.block);
    if (meaningful.length === 0 || !allBlocks) return;
    const lifted = meaningful.map((child) => ({ ...child, type: 'mdxJsxFlowElement' }) as unknown as RootContent);
    parent.children.splice(index, 1, ...lifted);
    return [SKIP, index];
  });
}

function columnCount(element: JsxElement): number {
  const children = (element.children as MdastNodes[]).filter((child) => !(child.type === 'text' && child.value.trim() === ''));
  const columns = children.filter((child) => (child.type === 'mdxJsxFlowElement' || child.type === 'mdxJsxTextElement') && child.name === 'Column');
  if (columns.length !== children.length || columns.length < 2 || columns.length > 3) {
    throw invalidRequest(
      `<Columns> at line ${where(element)} must hold two or three <Column> elements and nothing else; found ${columns.length} column(s) among ${children.length} child element(s).`,
    );
  }
  return columns.length;
}

function addCalloutTitle(element: JsxElement, props: Props): void {
  const type = props.type === undefined ? 'note' : String(props.type);
  const title = typeof props.title === 'string' && props.title.trim() ? props.title.trim() : type[0]!.toUpperCase() + type.slice(1);
  const heading = {
    type: 'paragraph',
    data: { hName: 'div', hProperties: { className: ['callout-title'] } },
    children: [{ type: 'text', value: title }],
  } as Paragraph;
  (element.children as unknown[]).unshift(heading);
}

function expressionError(source: string, node: { position?: MdastNodes['position'] }, context = ''): Error {
  const shown = source.length > 60 ? `${source.slice(0, 57)}…}` : source;
  return invalidRequest(
    `mdxMode never evaluates expressions: found ${shown}${context ? ` ${context}` : ''} at line ${where(node)}. ` +
      'To show braces as text, escape the opening one as \\{ or put the text in backticks; or send mdxMode: false.',
  );
}

const where = (node: { position?: MdastNodes['position'] }): string =>
  node.position ? `${node.position.start.line}, column ${node.position.start.column}` : '?';

function text(props: Props, name: string): string {
  const value = props[name];
  if (typeof value !== 'string') throw new PropError(name, value ?? true, 'a value in quotes');
  return value;
}

function optionalColour(props: Props): string | undefined {
  return props.color === undefined ? undefined : cssColour(text(props, 'color'));
}

/** `name: value` pairs for the set values, or undefined when none is set. */
function declarations(values: Record<string, string | undefined>): string | undefined {
  const set = Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return set.length ? set.map(([name, value]) => `${name}: ${value}`).join('; ') : undefined;
}

