import { stringify, type Options } from 'csv-stringify/sync';

/**
 * Every CSV the project writes (the reconciliation export, migrate's and verify's reports): RFC 4180
 * records ended by CRLF, a field quoted when it holds a comma, a double quote, a CR or an LF, null the
 * empty field (csv-stringify).
 *
 * The files are opened in spreadsheets, so a text cell that a spreadsheet would read as a formula
 * (one that begins with `=`, `+`, `-`, `@`, a tab or a carriage return; OWASP's CSV injection) is
 * written with a `'` in front, and so is a cell that already begins with `'`, so that the rule is
 * reversed by dropping one leading `'` (`csvCellValue`). A plain decimal number such as `-12.30`
 * is a value, not a formula, and is written as it is. The rule is a cast rather than csv-stringify's
 * `escape_formulas`, which can spare such numbers only through options given per cell: three times
 * the cost of the whole export.
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
