import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCellValue, csvRecords } from '../../src/export/csv.js';

const FORMULA_LEADS = ['=', '+', '-', '@', '\t', '\r'];
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

/** Strings rich in what matters to the rule: formula leads, a leading ', quotes, separators, numbers. */
const cellText = fc.oneof(
  fc.string(),
  fc.tuple(fc.constantFrom(...FORMULA_LEADS, "'", "''", '"', ',', '\n', ' '), fc.string()).map(([lead, rest]) => lead + rest),
  fc.tuple(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: 0, max: 99 })).map(([units, cents]) => `${units}.${String(cents).padStart(2, '0')}`),
);
const cell = fc.oneof(cellText, fc.integer().map((n) => n as string | number | null), fc.constant(null));

describe('csvRecords (every CSV the project writes)', () => {
  it('no cell begins with a formula character unescaped, and every value comes back for a reader that drops one leading \'', () => {
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }), (records) => {
        const width = Math.max(...records.map((r) => r.length));
        const rows = records.map((r) => [...r, ...Array<null>(width - r.length).fill(null)]);
        const cells: string[][] = parse(csvRecords(rows));
        expect(cells.length).toBe(rows.length);
        cells.forEach((written, i) =>
          written.forEach((text, j) => {
            if (FORMULA_LEADS.includes(text[0] ?? '')) expect(text).toMatch(PLAIN_NUMBER);
            const value = rows[i]![j];
            expect(csvCellValue(text)).toBe(value === null ? '' : String(value));
          }),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('ends records with CRLF and quotes a field that holds a comma, a quote, a CR or an LF', () => {
    expect(csvRecords([['a,b', 'say "hi"', 'x\ny', 'p\rq', 'plain', null, 3]])).toBe('"a,b","say ""hi""","x\ny","p\rq",plain,,3\r\n');
  });

  it('writes a decimal number as it is, and escapes what a spreadsheet reads as a formula', () => {
    expect(csvRecords([['-12.30', '=1+2', '+33', '@A1', '\tx', "'kept", '-x']])).toBe("-12.30,'=1+2,'+33,'@A1,'\tx,''kept,'-x\r\n");
  });
});
