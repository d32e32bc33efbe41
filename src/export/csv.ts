import { stringify, type Options } from 'csv-stringify/sync';

/**
 * Every CSV the project writes: RFC 4180 records ended by CRLF, null the empty field (csv-stringify).
 * The files are opened in spreadsheets, so a text cell a spreadsheet would read as a formula (OWASP's CSV
 * injection), or one that already begins with `'`, is written with a `'` in front, reversed by dropping one
 * leading `'` (`csvCellValue`); a plain decimal such as `-12.30` is a value and stays as it is. A cast, since
 * csv-stringify's `escape_formulas` spares such numbers only through per-cell options, at a high cost.
 */
const FORMULA_OR_QUOTE_LEAD = /^[=+\-@\t\r']/;
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

const options: Options = {
  record_delimiter: 'windows',
  quote_record_delimiter: true,
  cast: { string: (value) => (FORMULA_OR_QUOTE_LEAD.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value) },
};

/** Records as CSV text, one CRLF-ended line each. */
export function csvRecords(records: readonly (readonly (string | number | null)[])[]): string {
  return records.length === 0 ? '' : stringify(records as (string | number | null)[][], options);
}

/** The value a cell written by csvRecords stands for (what a reader that knows the rule does). */
export function csvCellValue(cell: string): string {
  return cell.startsWith("'") ? cell.slice(1) : cell;
}
