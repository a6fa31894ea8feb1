import { createReadStream } from 'node:fs';
import { badInput } from '../contract/errors.ts';

/**
 * The longest line an import reads by default, in bytes (newline excluded): an entry of
 * 100,000 characters with dozens of revisions fits, and it bounds what one line can cost,
 * since a line is parsed whole. An entry with a longer history exports a longer line;
 * `import --max-line-mb` reads it.
 */
export const LINE_MAX_BYTES = 8 * 1024 * 1024;

const NEWLINE = 0x0a;
const FIRST_LINE = new TextDecoder('utf-8', { fatal: true });
const OTHER_LINES = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const CR = 0x0d;

/**
 * The lines of a file, read strictly: each must be valid UTF-8 and at most `maxBytes` long,
 * or the read stops with BAD_USER_INPUT naming the line. A line longer than that is refused
 * as soon as its first `maxBytes + 1` bytes are in, so memory stays bounded by the limit and
 * one read chunk, whatever the file holds. A trailing `\r` (CRLF files) is dropped, and so
 * is a byte order mark at the start of the file.
 */
export async function* readLines(path: string, maxBytes: number = LINE_MAX_BYTES): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let lineNo = 1;
  const finish = (last: Buffer): string => {
    let line = parts.length === 0 ? last : Buffer.concat([...parts, last]);
    parts = [];
    partBytes = 0;
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    if (line.length > maxBytes) throw tooLong(lineNo, maxBytes);
    try {
      // Each line decodes on its own, so the error can name it. A BOM is dropped on line 1 only;
      // anywhere else it is content (U+FEFF), as JSON.parse then says.
      return (lineNo === 1 ? FIRST_LINE : OTHER_LINES).decode(line);
    } catch {
      throw badInput(`line ${lineNo}: not valid UTF-8 (${invalidAt(line)})`);
    }
  };
  const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, nl);
        if (partBytes + piece.length > maxBytes + 1) throw tooLong(lineNo, maxBytes);
        yield finish(piece);
        lineNo++;
        start = nl + 1;
      }
      const rest = chunk.subarray(start);
      if (rest.length > 0) {
        partBytes += rest.length;
        // +1: a CR that turns out to end the line does not count against it.
        if (partBytes > maxBytes + 1) throw tooLong(lineNo, maxBytes);
        // A copy: the stream may reuse the chunk's memory.
        parts.push(Buffer.from(rest));
      }
    }
    if (partBytes > 0) yield finish(Buffer.alloc(0));
  } finally {
    stream.destroy();
  }
}

const tooLong = (lineNo: number, maxBytes: number) =>
  badInput(
    `line ${lineNo}: longer than ${maxBytes} bytes (an entry with that much revision history may be; ` +
      'pass --max-line-mb to read longer lines)',
  );

/** Where the first invalid byte of a line is, for the message: "byte 17 (0xff)". */
function invalidAt(line: Buffer): string {
  let i = 0;
  while (i < line.length) {
    const b = line[i]!;
    const need =
      b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) break;
    const end = i + 1 + need;
    if (end > line.length) break;
    let ok = true;
    for (let k = i + 1; k < end; k++) if ((line[k]! & 0xc0) !== 0x80) ok = false;
    // Overlong three- and four-byte forms, surrogates and code points past U+10FFFF.
    const b1 = line[i + 1] ?? 0;
    if (need === 2 && ((b === 0xe0 && b1 < 0xa0) || (b === 0xed && b1 > 0x9f))) ok = false;
    if (need === 3 && ((b === 0xf0 && b1 < 0x90) || (b === 0xf4 && b1 > 0x8f))) ok = false;
    if (!ok) break;
    i = end;
  }
  return i < line.length ? `byte ${i + 1} of the line is 0x${line[i]!.toString(16).padStart(2, '0')}` : 'cut short';
}
