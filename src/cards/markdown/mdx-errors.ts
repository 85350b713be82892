// Turns an MDX parse failure into a 400 that says where it is and what usually causes it, so an
// author can fix the document without knowing what MDX or acorn are.
import { CardError, invalidRequest } from '../errors.js';

interface ParseMessage {
  line?: number;
  column?: number;
  reason?: string;
  source?: string;
}

const isParseMessage = (error: unknown): error is Error & ParseMessage =>
  error instanceof Error && error.name !== 'CardError' && typeof (error as ParseMessage).reason === 'string';

/** The 400 for a document remark-mdx could not parse; other errors are returned unchanged. */
export function mdxSyntaxError(error: unknown): unknown {
  if (error instanceof CardError || !isParseMessage(error)) return error;
  const where = error.line ? `line ${error.line}, column ${error.column ?? 1}` : 'an unknown place';
  if (error.source === 'micromark-extension-mdxjs-esm') {
    return invalidRequest(
      `mdxMode does not run import or export statements (line ${error.line ?? '?'}); nothing in a document is ever evaluated. ` +
        'Remove the line, or put it in backticks to show it as text.',
    );
  }
  return invalidRequest(
    `MDX syntax error at ${where}: ${error.reason!.replace(/\s+/g, ' ').trim()}. ` +
      'Hint: a bare < or { is the usual cause; write \\< or \\{, or put the text in backticks, or send mdxMode: false.',
  );
}
