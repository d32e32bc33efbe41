import fc from 'fast-check';
import type { TestLedger } from './ledger.js';

/**
 * Hostile versions of an example payload for the per-endpoint fuzz tests
 * (test/hardening/fuzz-*.test.ts): mutations at random places of the example
 * (wrong types, missing and extra fields, empty and huge strings, huge arrays,
 * deep nesting, numbers a double cannot hold, NaN-like strings, `__proto__`
 * and `constructor.prototype` keys, duplicate keys, lone surrogates), then
 * transforms of the text (truncation, invalid UTF-8) and of the content type.
 */

/** JSON text written as is: a number literal (`1e400`, `9007199254740993`) or very deep nesting. */
export class RawNumber {
  constructor(readonly text: string) {}
}

/** An object written with its entries in order, repeated keys included (JSON.parse keeps the last). */
export class Entries {
  constructor(readonly entries: readonly (readonly [string, unknown])[]) {}
}

/** JSON text of a value that may hold RawNumber and Entries. */
export function serialize(value: unknown): string {
  if (value instanceof RawNumber) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${serialize(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(serialize).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    // Own keys, `__proto__` included (a JSON text may hold one; JSON.parse makes it an own property).
    return `{${Object.keys(value).map((k) => `${JSON.stringify(k)}:${serialize((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
  return JSON.stringify(value) ?? 'null';
}

type Path = readonly (string | number)[];

/** Every path into the value (the root included), containers and leaves. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const paths: Path[] = [prefix];
  if (value instanceof Entries || value instanceof RawNumber) return paths;
  if (Array.isArray(value)) value.forEach((item, i) => paths.push(...pathsOf(item, [...prefix, i])));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  }
  return paths;
}

const NAN_LIKE = ['NaN', 'Infinity', '-Infinity', '1e400', '-0', '0x1F', ' 12 ', '12,50', '١٢', '1_000', 'null', 'undefined', 'true', '[]', '{}'];
const SPECIAL_NUMBERS = ['1e400', '-1e400', '9007199254740993', '-9007199254740993', '1e-400', '0.1000000000000000001', '-0', '1E2', '0.30000000000000004', '123456789012.345', '5e-324', '1.7976931348623157e308'];
const LONE_SURROGATES = ['\ud800', 'a\udc00b', 'LEG-\ud83d', '\udfff\ud800'];

/** Values of every JSON kind and then some; `examples` are subtrees of the example (type confusion). */
function hostileValue(examples: readonly unknown[]): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.constant(''),
    fc.constant('   '),
    fc.constantFrom(...NAN_LIKE),
    fc.constantFrom(...SPECIAL_NUMBERS).map((text) => new RawNumber(text)),
    fc.constantFrom(...LONE_SURROGATES),
    fc.constantFrom(1_000, 60_000, 70_000).map((n) => 'x'.repeat(n)),
    fc.constantFrom(...examples),
  );
  const smallLeaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 5 }), fc.constantFrom(...SPECIAL_NUMBERS).map((text) => new RawNumber(text)));
  return fc.oneof(
    { weight: 6, arbitrary: leaf },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.array(leaf, { maxLength: 5 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), leaf, { maxKeys: 4 }) },
    // Huge arrays of small items only, so that no case grows past a few megabytes.
    { weight: 1, arbitrary: fc.constantFrom(100, 1_000, 10_001).chain((n) => smallLeaf.map((item) => Array(n).fill(item))) },
    { weight: 1, arbitrary: fc.constantFrom(10, 60, 63, 64, 65).map((depth) => nestedArrays(depth)) },
    { weight: 1, arbitrary: fc.constantFrom(60, 70).map((depth) => nestedObjects(depth)) },
    // Far deeper nesting, written as text (no deep structure in the test itself).
    { weight: 1, arbitrary: fc.constantFrom(1_000, 100_000).map((depth) => new RawNumber('['.repeat(depth) + ']'.repeat(depth))) },
  );
}

const nestedArrays = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};
const nestedObjects = (depth: number): unknown => {
  let value: unknown = 'x';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

type Mutation =
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'extra'; at: number; key: string; value: unknown }
  | { kind: 'proto'; at: number; payload: unknown }
  | { kind: 'duplicate'; at: number; value: unknown };

const PROTO_PAYLOADS: unknown[] = [
  { polluted: 'yes' },
  { toString: 'x', valueOf: 1, hasOwnProperty: null },
  { import_supplier: 'OTHER_SUPPLIER', isAdmin: true },
];

function mutationArb(examples: readonly unknown[]): fc.Arbitrary<Mutation> {
  const at = fc.nat();
  const value = hostileValue(examples);
  return fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('replace' as const), at, value }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), at }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('extra' as const), at, key: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('toString', 'hasOwnProperty', 'constructor', 'prototype', 'valueOf', '', ' ')), value }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('proto' as const), at, payload: fc.constantFrom(...PROTO_PAYLOADS) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('duplicate' as const), at, value }) },
  );
}

function getAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const part of path) node = (node as Record<string | number, unknown>)[part];
  return node;
}

/** A deep copy (values drawn from the example are shared between cases and must never be mutated in place). */
function copy(value: unknown): unknown {
  if (value instanceof RawNumber || value instanceof Entries || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copy);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, { value: copy((value as Record<string, unknown>)[key]), enumerable: true, configurable: true, writable: true });
  }
  return out;
}

/** Applies one mutation to the root (a copy); returns the new root. */
function applyMutation(root: unknown, original: Mutation): unknown {
  const m: Mutation =
    original.kind === 'replace' || original.kind === 'extra' || original.kind === 'duplicate'
      ? { ...original, value: copy(original.value) }
      : original.kind === 'proto'
        ? { ...original, payload: copy(original.payload) }
        : original;
  const paths = pathsOf(root);
  const path = paths[m.at % paths.length] ?? [];
  const parentPath = path.slice(0, -1);
  const last = path[path.length - 1];
  const set = (value: unknown): unknown => {
    if (path.length === 0) return value;
    const parent = getAt(root, parentPath) as Record<string | number, unknown>;
    if (parent instanceof Entries || parent === null || typeof parent !== 'object') return root;
    parent[last as string | number] = value;
    return root;
  };
  const node = getAt(root, path);
  switch (m.kind) {
    case 'replace':
      return set(m.value);
    case 'delete': {
      if (path.length === 0) return root;
      const parent = getAt(root, parentPath);
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else if (parent && typeof parent === 'object' && !(parent instanceof Entries)) delete (parent as Record<string, unknown>)[last as string];
      return root;
    }
    case 'extra':
      if (node && typeof node === 'object' && !Array.isArray(node) && !(node instanceof Entries)) (node as Record<string, unknown>)[m.key] = m.value;
      return root;
    case 'proto':
      if (node && typeof node === 'object' && !Array.isArray(node) && !(node instanceof Entries)) {
        // Own `__proto__` and `constructor.prototype` keys, as JSON.parse would produce them.
        Object.defineProperty(node, '__proto__', { value: m.payload, enumerable: true, configurable: true, writable: true });
        (node as Record<string, unknown>)['constructor'] = { prototype: m.payload };
      }
      return root;
    case 'duplicate':
      if (node && typeof node === 'object' && !Array.isArray(node) && !(node instanceof Entries)) {
        const entries = Object.keys(node).map((k) => [k, (node as Record<string, unknown>)[k]] as const);
        if (entries.length === 0) return root;
        const [key] = entries[m.at % entries.length]!;
        // The hostile value first, the example's after it (and the other way round half the time).
        const twice: (readonly [string, unknown])[] = m.at % 2 === 0 ? [[key, m.value], ...entries] : [...entries, [key, m.value]];
        return set(new Entries(twice));
      }
      return root;
  }
}

export interface FuzzCase {
  readonly text: string | Uint8Array;
  readonly contentType: string;
}

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/merge-patch+json', 'text/plain', 'application/x-www-form-urlencoded', '', 'application/xml'];

/** A hostile request body built from one of `examples`. */
export function fuzzCase(examples: readonly unknown[]): fc.Arbitrary<FuzzCase> {
  const subtrees = examples.flatMap((example) => pathsOf(example).map((p) => getAt(example, p))).slice(0, 200);
  return fc
    .record({
      example: fc.nat({ max: Math.max(0, examples.length - 1) }),
      mutations: fc.array(mutationArb(subtrees), { minLength: 0, maxLength: 3 }),
      text: fc.oneof(
        { weight: 12, arbitrary: fc.constant({ kind: 'as-is' as const }) },
        { weight: 1, arbitrary: fc.nat().map((cut) => ({ kind: 'truncate' as const, cut })) },
        { weight: 1, arbitrary: fc.nat().map((at) => ({ kind: 'bad-utf8' as const, at })) },
        { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((junk) => ({ kind: 'junk' as const, junk })) },
      ),
      contentType: fc.oneof({ weight: 12, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
    })
    .map(({ example, mutations, text, contentType }) => {
      let root = copy(examples[example] ?? {});
      for (const m of mutations) root = applyMutation(root, m);
      const json = serialize(root);
      switch (text.kind) {
        case 'as-is':
          return { text: json, contentType };
        case 'truncate':
          return { text: json.slice(0, text.cut % Math.max(1, json.length)), contentType };
        case 'junk':
          return { text: text.junk, contentType };
        case 'bad-utf8': {
          const bytes = new TextEncoder().encode(json);
          const at = text.at % Math.max(1, bytes.length);
          return { text: new Uint8Array([...bytes.slice(0, at), 0xff, 0xfe, 0xc3, ...bytes.slice(at)]), contentType };
        }
      }
    });
}

/** Spec 7: exactly {detail, code, errors[{detail, code, attr}]} plus extras; detail and code non-empty strings. */
export function isSpecErrorBody(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  if (typeof b['detail'] !== 'string' || b['detail'] === '' || typeof b['code'] !== 'string' || b['code'] === '') return false;
  if (!Array.isArray(b['errors']) || b['errors'].length === 0) return false;
  return b['errors'].every(
    (item: unknown) =>
      item !== null &&
      typeof item === 'object' &&
      Object.keys(item).sort().join() === 'attr,code,detail' &&
      typeof (item as Record<string, unknown>)['detail'] === 'string' &&
      typeof (item as Record<string, unknown>)['code'] === 'string' &&
      typeof (item as Record<string, unknown>)['attr'] === 'string',
  );
}

/** The transactions endpoint's documented TRANSACTION_IMPORT_ERROR body (spec 4.10, 7.4). */
export function isTransactionImportErrorBody(body: unknown): boolean {
  if (body === null || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  return b['status'] === 'TRANSACTION_IMPORT_ERROR' && typeof b['error_detail'] === 'string' && typeof b['code'] === 'string' && typeof b['transaction_data'] === 'object';
}

/** Every own property of Object.prototype, to compare before and after a run. */
export function prototypeSnapshot(): string {
  return Object.getOwnPropertyNames(Object.prototype)
    .sort()
    .map((name) => `${name}:${typeof Object.getOwnPropertyDescriptor(Object.prototype, name)?.value}`)
    .join(',');
}

/** Keys whose numbers are amounts (money, prices, quantities): they must be finite and, when whole, safe integers. */
const AMOUNT_KEY = /amount|cents|price|balance|total|gross|net|quantity|consumption|rate/i;

/**
 * Every number stored anywhere in the database that is not finite, and every
 * amount (a column, or a JSON field whose key names an amount) that is an
 * integer past 2^53: what an overflow or a lost precision would leave behind.
 * (Free-form metadata may hold any finite number the caller sent: the JSON
 * limits guarantee it is exactly the one sent.)
 */
export async function unsafeStoredNumbers(t: Pick<TestLedger, 'store' | 'execute'>): Promise<string[]> {
  const found: string[] = [];
  const check = (where: string, value: unknown, amount: boolean) => {
    if (typeof value === 'number') {
      if (!Number.isFinite(value) || (amount && Number.isInteger(value) && !Number.isSafeInteger(value))) found.push(`${where}: ${value}`);
    } else if (typeof value === 'bigint') found.push(`${where}: ${value}`);
    else if (Array.isArray(value)) value.forEach((v, i) => check(`${where}.${i}`, v, amount));
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) check(`${where}.${k}`, v, amount || AMOUNT_KEY.test(k));
    }
  };
  // Every table of the database, the migrations' journal included (PostgreSQL: every schema but the system's).
  const tables = (
    t.store === 'postgres'
      ? await t.execute(
          "SELECT schemaname AS schema, tablename AS name FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2",
        )
      : await t.execute("SELECT NULL AS schema, name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY 2")
  ) as { schema: string | null; name: string }[];
  for (const { schema, name: table } of tables) {
    const name = schema === null || schema === 'public' ? table : `${schema}.${table}`;
    const from = schema === null ? `"${table}"` : `"${schema}"."${table}"`;
    for (const row of await t.execute(`SELECT * FROM ${from}`)) {
      for (const [column, value] of Object.entries(row)) {
        if (typeof value === 'string' && /^[[{]/.test(value)) {
          try {
            check(`${name}.${column}`, JSON.parse(value), false);
          } catch {
            // not JSON
          }
          // JSON.stringify writes Infinity and NaN as null: a number that became null is caught by the event schemas on read.
          continue;
        }
        check(`${name}.${column}`, value, true);
      }
    }
  }
  return found;
}
