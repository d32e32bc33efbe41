/**
 * A JSON number as the decimal string it reads as, never a float to compute with. `String(n)` is the shortest
 * text that reads back as the same double, which is what the caller wrote ("0.2516"); only the exponent form
 * of very small or large values ("1e-7") needs expanding.
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
