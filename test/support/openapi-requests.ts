import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { generateSync } from 'json-schema-faker';

/**
 * Requests made from an OpenAPI document alone, as a client generated from it would send them: each
 * query parameter and request body is a value json-schema-faker generates from the document's own
 * schema, seeded by fast-check (a failing run is replayed by its seed). Path parameters, and the body
 * fields that name what a request acts on, are pinned to resources the test has made: a random one is
 * only ever "not found" or "not yours".
 */

export type Schema = Record<string, unknown>;

export interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly description?: string;
  readonly schema?: Schema;
}

interface Operation {
  readonly operationId?: string;
  readonly description?: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface OpenApiDocument {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components?: { schemas?: Record<string, Schema> };
}

/** One operation of the document, as the generator reads it. */
export interface DocumentedOperation {
  readonly operationId: string;
  readonly method: 'GET' | 'POST';
  /** The document's path template (`/v1/x/{supplier}/`). */
  readonly path: string;
  readonly description: string;
  readonly query: readonly Parameter[];
  readonly pathParameters: readonly string[];
  readonly body: Schema | null;
}

export interface DocumentRequest {
  readonly method: 'GET' | 'POST';
  /** Path and query string. */
  readonly url: string;
  readonly query: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
}

export function documentedOperations(document: OpenApiDocument): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      operationId: operation.operationId ?? `${method} ${path}`,
      method: method.toUpperCase() as 'GET' | 'POST',
      path,
      description: operation.description ?? '',
      query: (operation.parameters ?? []).filter((p) => p.in === 'query'),
      pathParameters: (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
      body: operation.requestBody?.content?.['application/json']?.schema ?? null,
    })),
  );
}

/** What fixes the identity of a request. */
export interface Pins {
  /** A value for each path parameter, by name. */
  readonly path: Record<string, fc.Arbitrary<string>>;
  /** Body fields (at the top, or one object down) set to these values when the body has them; null keeps the generated one. */
  readonly fields: Record<string, fc.Arbitrary<string | null>>;
}

/** Generates values of the document's schemas, and tells whether a value is valid by them (ajv, formats included). */
export class DocumentValues {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  private readonly validators = new Map<Schema, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats.default(this.ajv);
    // ajv divides in floating point (11.7 / 0.01 is 1169.9999999999998); JSON reads a number as the decimal it is written as.
    this.ajv.removeKeyword('multipleOf');
    this.ajv.addKeyword({ keyword: 'multipleOf', type: 'number', schemaType: 'number', validate: (step: number, value: number) => isDecimalMultiple(value, step) });
  }

  private withComponents(schema: Schema): Schema {
    return { ...schema, components: this.document.components ?? {} };
  }

  /** A value of `schema`, from `seed`. Arrays are kept short: what a request holds, not how many. */
  generate(schema: Schema, seed: number, optionalsProbability: number): unknown {
    return asWritten(generateSync(this.withComponents(schema) as never, { seed, optionalsProbability, maxItems: 3, refDepthMax: 3 }));
  }

  /** Why `value` is not valid by `schema`, or null when it is. */
  problems(schema: Schema, value: unknown): string | null {
    let validate = this.validators.get(schema);
    if (!validate) this.validators.set(schema, (validate = this.ajv.compile(this.withComponents(schema))));
    return validate(value) ? null : this.ajv.errorsText(validate.errors);
  }

  /** Why `request` is not one the document allows for `operation`, or null when it is. */
  requestProblems(operation: DocumentedOperation, request: DocumentRequest): string | null {
    const problems = operation.query
      .filter((parameter) => parameter.name in request.query)
      .map((parameter) => values(this, parameter.schema ?? {}, request.query[parameter.name], `?${parameter.name}`));
    if (operation.body) problems.push(values(this, operation.body, request.body, 'body'));
    const found = problems.filter((p) => p !== null);
    return found.length > 0 ? found.join('; ') : null;
  }
}

const values = (documentValues: DocumentValues, schema: Schema, value: unknown, where: string): string | null => {
  const problem = documentValues.problems(schema, value);
  return problem === null ? null : `${where}: ${problem}`;
};

/** A number as integer digits and a power of ten: the decimal its shortest text (what JSON carries) says. */
function decimalOf(n: number): { digits: bigint; exponent: number } {
  const [mantissa = '0', exponent = '0'] = n.toExponential().split('e');
  const fraction = mantissa.split('.')[1] ?? '';
  return { digits: BigInt(mantissa.replace('.', '')), exponent: Number(exponent) - fraction.length };
}

function isDecimalMultiple(value: number, step: number): boolean {
  const a = decimalOf(value);
  const b = decimalOf(step);
  const exponent = Math.min(a.exponent, b.exponent);
  const scaled = (d: { digits: bigint; exponent: number }) => d.digits * 10n ** BigInt(d.exponent - exponent);
  return scaled(a) % scaled(b) === 0n;
}

/**
 * Numbers as a client writes them. json-schema-faker computes a multiple of a decimal step in binary floating
 * point (11.7 comes out as 11.700000000000001, which is no multiple of 0.01 as JSON reads it): a fraction is
 * written with 15 significant digits, as many as a double holds.
 */
function asWritten(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(15));
  if (Array.isArray(value)) return value.map(asWritten);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asWritten(item)]));
}

/**
 * `value` with the fields named in `fields` replaced by their pinned values: at the top and one object
 * down (v2's `payload`), where a request names what it acts on; deeper ones are the request's own data.
 */
function pinned(value: unknown, fields: Record<string, string | null>, depth = 2): unknown {
  if (depth === 0 || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, typeof fields[key] === 'string' && typeof item === 'string' ? fields[key] : pinned(item, fields, depth - 1)]),
  );
}

/** A query value as the URL carries it (OpenAPI's default `form` style). */
const queryText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * Requests to `operation` by the document: each query parameter sent or left out at random (a required
 * one always sent), the body's optional fields all there, none, or half of them. A pinned value the
 * schema does not take is left as generated.
 */
export function documentRequests(documentValues: DocumentValues, operation: DocumentedOperation, pins: Pins): fc.Arbitrary<DocumentRequest> {
  const path = fc.record(Object.fromEntries(operation.pathParameters.map((name) => [name, pins.path[name] ?? fc.constant(name)])));
  const sent = fc.record(Object.fromEntries(operation.query.map((parameter) => [parameter.name, fc.boolean()])));
  return fc
    .record({ path, sent, fields: fc.record(pins.fields), seed: fc.nat(), optionals: fc.constantFrom(0, 0.5, 1) })
    .map(({ path: names, sent: chosen, fields, seed, optionals }) => {
      const query: Record<string, unknown> = {};
      operation.query.forEach((parameter, i) => {
        if (chosen[parameter.name] || parameter.required) query[parameter.name] = documentValues.generate(parameter.schema ?? {}, seed + i, optionals);
      });
      const search = new URLSearchParams(Object.entries(query).map(([name, value]): [string, string] => [name, queryText(value)])).toString();
      const pathname = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(names[name] ?? name));
      const request: DocumentRequest = { method: operation.method, url: search ? `${pathname}?${search}` : pathname, query };
      if (!operation.body) return request;
      const generated = documentValues.generate(operation.body, seed, optionals);
      const body = pinned(generated, fields);
      return { ...request, body: documentValues.problems(operation.body, body) === null ? body : generated };
    });
}
