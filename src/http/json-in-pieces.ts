// A large JSON answer sent in pieces, yielding to the event loop between them. A preview whose
// cards inline many images (remote pictures, drawn SVGs) is several MB of JSON; made in one go,
// JSON.stringify, the byte count and the socket write of 9 MB held the main thread, /health
// included, for half a second. Here long strings are escaped a slice at a time and the text goes
// out as the socket takes it, with a turn of the event loop after each piece.
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Strings longer than this are escaped in slices of this length. */
const sliceLength = 256 * 1024;

/** The JSON text of `value`, as JSON.stringify writes it, in pieces of at most about a slice. */
function* jsonPieces(value: unknown): Generator<string> {
  if (typeof value === 'string' && value.length > sliceLength) {
    yield '"';
    for (let start = 0; start < value.length; ) {
      let end = Math.min(start + sliceLength, value.length);
      // Never between the two halves of a surrogate pair: each slice is escaped on its own.
      const last = value.charCodeAt(end - 1);
      if (end < value.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
      yield JSON.stringify(value.slice(start, end)).slice(1, -1);
      start = end;
    }
    yield '"';
  } else if (Array.isArray(value)) {
    yield '[';
    for (const [index, item] of value.entries()) {
      if (index > 0) yield ',';
      yield* jsonPieces(item === undefined || typeof item === 'function' ? null : item);
    }
    yield ']';
  } else if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON !== 'function') {
    yield '{';
    let first = true;
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || typeof item === 'function') continue;
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      yield* jsonPieces(item);
    }
    yield '}';
  } else {
    yield JSON.stringify(value) ?? 'null';
  }
}

/** `value` as a stream of JSON text, pieces of about a slice gathered and sent one per turn of the event loop. */
export function jsonInPieces(value: unknown): Readable {
  return Readable.from(
    (async function* () {
      let gathered = '';
      for (const piece of jsonPieces(value)) {
        gathered += piece;
        if (gathered.length >= sliceLength) {
          yield Buffer.from(gathered);
          gathered = '';
          await nextTurn();
        }
      }
      if (gathered) yield Buffer.from(gathered);
    })(),
    { objectMode: false },
  );
}

/** Whether `value` holds so much text that sending it in one go would hold the event loop: any string of more than a slice. */
export function holdsLongText(value: unknown): boolean {
  if (typeof value === 'string') return value.length > sliceLength;
  if (Array.isArray(value)) return value.some(holdsLongText);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(holdsLongText);
  return false;
}
