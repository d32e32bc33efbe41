import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** One line of an NDJSON file: its number (from 1), its text, and its value or why it does not parse. */
export type NdjsonLine = { readonly lineNumber: number; readonly line: string } & ({ readonly value: unknown } | { readonly problem: string });

/**
 * The one NDJSON reader of the migrate client: a line at a time, in file order, blank lines skipped, never
 * the file at once. A line that does not parse is given with its problem, never the end of the file.
 */
export async function* ndjsonLines(file: string): AsyncGenerator<NdjsonLine> {
  let lineNumber = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    lineNumber++;
    if (line.trim() === '') continue;
    try {
      yield { lineNumber, line, value: JSON.parse(line) as unknown };
    } catch (error) {
      yield { lineNumber, line, problem: `not JSON: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}

/** ASCII whitespace: a line of nothing else is blank (as `line.trim() === ''` has it for any line of ASCII). */
const isBlankByte = (byte: number) => byte === 0x20 || (byte >= 0x09 && byte <= 0x0d);

/**
 * The lines of a file holding anything but whitespace, counted on its bytes (newlines by `indexOf`, a line
 * looked at up to its first other byte), at the speed the file is read, without a string per line. Only
 * the progress total comes from it: a lone CR, a line break to readline, is not one here.
 */
export async function countNonBlankLines(file: string, chunkBytes = 64 * 1024): Promise<number> {
  let count = 0;
  /** Whether the line being read (it may go on in the next chunk) has a byte that is not whitespace. */
  let lineHasContent = false;
  for await (const chunk of createReadStream(file, { highWaterMark: chunkBytes }) as AsyncIterable<Buffer>) {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      for (let i = start; i < end && !lineHasContent; i++) if (!isBlankByte(chunk[i]!)) lineHasContent = true;
      if (newline === -1) break;
      if (lineHasContent) count++;
      lineHasContent = false;
      start = newline + 1;
    }
  }
  return lineHasContent ? count + 1 : count;
}
