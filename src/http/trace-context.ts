/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): `traceparent` is
 * `version-traceid-parentid-flags` in lowercase hex. Version 00 is exactly
 * that; a later version may append fields after a dash, of which the first
 * four are read. Version ff, an all-zero trace id or parent id, or any other
 * shape is invalid, and an invalid header is ignored as the spec says.
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The `traceparent` to record (its version-00 form, 55 characters), or null when it is absent or invalid. */
export function parseTraceparent(header: string | undefined): string | null {
  if (header === undefined || header.length > 512) return null;
  const match = TRACEPARENT.exec(header.trim());
  if (!match) return null;
  const [, version, traceId, parentId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff') return null;
  // Version 00 has exactly four fields; a future version may carry more (read as 00).
  if (version === '00' && rest !== undefined) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(parentId)) return null;
  return `${version}-${traceId}-${parentId}-${flags}`;
}
