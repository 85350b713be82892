// The one place where a failure of the core becomes the CLI's exit status: 2 when the request
// itself is at fault (fix the command or the document), 1 for everything that may pass later.
import type { CardError, CardErrorKind } from '../cards/errors.js';

const exitCodeOfKind: Record<CardErrorKind, number> = {
  invalid_request: 2,
  content_too_large: 2,
  busy: 1,
  render_failed: 1,
  storage_failed: 1,
};

export const exitCodeOf = (error: CardError): number => exitCodeOfKind[error.kind];
