/**
 * Prices travel as JSON numbers (`0.2516`) and are kept as the decimal string
 * that number reads as, never as a float to compute with. `String(n)` is the
 * shortest text that reads back as the same double, which for the decimals a
 * caller writes is what they wrote ("0.2516", "12"); only the exponent form of
 * very small or large values ("1e-7") needs expanding.
 */
export function decimalString(value: number): string {
  const text = String(Math.abs(value));
  const match = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const digits = `${match[1]}${match[2] ?? ''}`;
  const point = 1 + Number(match[3]);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${digits}${'0'.repeat(point - digits.length)}`;
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Digits before and after the point of a decimal string. */
export function decimalDigits(decimal: string): { whole: number; fraction: number } {
  const [whole = '', fraction = ''] = decimal.split('.');
  return { whole: whole.replace(/^0+(?=\d)/, '').length, fraction: fraction.length };
}
