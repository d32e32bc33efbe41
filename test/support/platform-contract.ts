import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import fc from 'fast-check';

/**
 * The platform's published data-import contract (two tenants' OpenAPI 3.0.3
 * captures, copied into test/fixtures/platform-openapi/ so a clone alone runs the test), read as JSON Schema
 * so that our answers for the shared v1 operations can be validated against it.
 *
 * The captures are other markets' contracts: their README lists how to read
 * them against ours, and `relax` applies exactly that, nothing more:
 * - every `kraken_*` property is our `platform_*`;
 * - tenant enums are dropped (import supplier codes, payment vendors,
 *   transaction reasons); the transfer status is checked against our spec's
 *   five states (3.1);
 * - deprecated properties, and `account_number` everywhere, are optional;
 * - a `oneOf` with a discriminator selects its branch by the discriminator,
 *   any other `oneOf` reads as `anyOf`;
 * - the list items' `platform_account_number` and `account_created_at` may be null;
 * - a statement's `gross_amount` may be any number (euros here, minor units there), null where the capture allows it;
 * - EDF's `DRFError` stands for a Django REST framework map of field to
 *   messages (lists of strings, or nested maps): so a body in another shape
 *   does not pass as one just because the capture's schema closes nothing.
 * The rest (the envelope-only validate-account answer, the
 * notes list, spec-7 bodies for validation failures, the dry run's
 * `{detail, code}`) is per operation, in the test that uses these schemas.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export type PlatformDocumentName = 'edf' | 'origin';

const FILES: Readonly<Record<PlatformDocumentName, string>> = {
  edf: 'edf-data-import.yml',
  origin: 'origin-data-import.yml',
};

/** Our spec's transfer states (3.1), in place of the capture's three. */
const TRANSFER_STATUSES = ['UNKNOWN', 'PENDING', 'IN_PROGRESS', 'REJECTED', 'COMPLETED'];

/** Properties whose enum belongs to one tenant. */
const TENANT_ENUM_PROPERTIES = new Set(['import_supplier', 'import_supplier_code', 'vendor', 'reason']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

const renamed = (name: string) => name.replace(/^kraken_/, 'platform_');

/** A Django REST framework ValidationError body: every value a list of messages or a nested map. */
export const DRF_ERROR_MAP: Json = {
  type: 'object',
  additionalProperties: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'object' }] },
};

/** One schema node with the README's relaxations applied, recursively. */
function relax(node: Json, schemaName: string | null): Json {
  if (schemaName === 'DRFError') return DRF_ERROR_MAP;
  if (Array.isArray(node)) return node.map((item) => relax(item, null));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) out[key] = relax(value, null);

  const properties = out['properties'];
  if (isObject(properties)) {
    const relaxedProperties: JsonObject = {};
    const optional = new Set<string>(['account_number']);
    for (const [name, property] of Object.entries(properties)) {
      let relaxedProperty = property;
      if (isObject(property)) {
        if (property['deprecated'] === true) optional.add(name);
        if (TENANT_ENUM_PROPERTIES.has(name) && 'enum' in property) {
          const { enum: _dropped, ...rest } = property;
          relaxedProperty = rest;
        }
        if (name === 'status' && schemaName === 'AccountTransferStatus') relaxedProperty = { ...property, enum: TRANSFER_STATUSES };
        if (name === 'gross_amount') relaxedProperty = { type: 'number', nullable: property['nullable'] === true };
        if (schemaName === 'ImportProcess' && (name === 'kraken_account_number' || name === 'account_created_at')) {
          relaxedProperty = { ...property, nullable: true };
        }
      }
      relaxedProperties[renamed(name)] = relaxedProperty;
    }
    out['properties'] = relaxedProperties;
    const required = out['required'];
    if (Array.isArray(required)) {
      out['required'] = required.filter((name): name is string => typeof name === 'string' && !optional.has(name)).map(renamed);
    }
  }

  const oneOf = out['oneOf'];
  if (Array.isArray(oneOf)) {
    const discriminator = out['discriminator'];
    delete out['oneOf'];
    delete out['discriminator'];
    if (isObject(discriminator) && typeof discriminator['propertyName'] === 'string' && isObject(discriminator['mapping'])) {
      // The branch is the one the discriminator names (no schema closes its objects, so several could fit).
      const property = discriminator['propertyName'];
      out['allOf'] = Object.entries(discriminator['mapping']).map(([value, ref]) => ({
        if: { properties: { [property]: { const: value } }, required: [property] },
        then: { $ref: ref },
      }));
      out['required'] = [property];
      out['properties'] = { [property]: { enum: Object.keys(discriminator['mapping']) } };
    } else {
      out['anyOf'] = oneOf;
    }
  }
  return out;
}

export interface PlatformContract {
  readonly name: PlatformDocumentName;
  /** The OpenAPI document as parsed, for its paths and responses. */
  readonly document: JsonObject;
  /** A validator for a schema of the document (its refs resolve to the relaxed components). */
  validator(schema: Json): ValidateFunction;
  /** The relaxed component schema of that name. */
  component(name: string): Json;
}

/** Loads one capture: parsed YAML, relaxed components, an Ajv instance that resolves `#/components/schemas/...`. */
export function loadPlatformContract(name: PlatformDocumentName): PlatformContract {
  const text = readFileSync(new URL(`../fixtures/platform-openapi/${FILES[name]}`, import.meta.url), 'utf8');
  const document = parse(text) as JsonObject;
  const components = document['components'];
  const schemas = isObject(components) && isObject(components['schemas']) ? components['schemas'] : {};
  const relaxed: JsonObject = {};
  for (const [schemaName, schema] of Object.entries(schemas)) relaxed[schemaName] = relax(schema, schemaName);
  const id = `platform-${name}`;
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addFormat('decimal', /^-?\d+(\.\d+)?$/);
  ajv.addSchema({ $id: id, components: { schemas: relaxed } });
  const cache = new Map<string, ValidateFunction>();
  return {
    name,
    document,
    component: (schemaName) => relaxed[schemaName] ?? null,
    validator(schema) {
      const key = JSON.stringify(schema);
      let validate = cache.get(key);
      if (!validate) {
        // Refs of the document are local (`#/components/...`): point them at the added document.
        const rebased = JSON.parse(key.replaceAll('"#/components/', `"${id}#/components/`)) as Json;
        validate = ajv.compile(relax(rebased, null) as object);
        cache.set(key, validate);
      }
      return validate;
    },
  };
}

/** The documented JSON schema of an answer, `null` when the status is documented without a body schema, `undefined` when not documented. */
export function documentedResponse(contract: PlatformContract, method: string, path: string, status: number): Json | undefined {
  const paths = contract.document['paths'];
  const operation = isObject(paths) && isObject(paths[path]) ? paths[path][method] : undefined;
  const responses = isObject(operation) ? operation['responses'] : undefined;
  const response = isObject(responses) ? responses[String(status)] : undefined;
  if (!isObject(response)) return undefined;
  const content = response['content'];
  const json = isObject(content) ? content['application/json'] : undefined;
  return isObject(json) && json['schema'] !== undefined ? json['schema'] : null;
}

/** The request examples of a capture's operations: `[path, example body]` for each POST that has one. */
export function requestExamples(contract: PlatformContract): [string, JsonObject][] {
  const paths = contract.document['paths'];
  if (!isObject(paths)) return [];
  return Object.entries(paths).flatMap(([path, item]) => {
    const post = isObject(item) ? item['post'] : undefined;
    const body = isObject(post) ? post['requestBody'] : undefined;
    const json = isObject(body) && isObject(body['content']) ? body['content']['application/json'] : undefined;
    const examples = isObject(json) && isObject(json['examples']) ? Object.values(json['examples']) : [];
    return examples.flatMap((example) => (isObject(example) && isObject(example['value']) ? [[path, example['value']] as [string, JsonObject]] : []));
  });
}

/** The name of a POST's request body schema in a capture (its `$ref`). */
export function requestSchemaName(contract: PlatformContract, path: string): string | null {
  const paths = contract.document['paths'];
  const post = isObject(paths) && isObject(paths[path]) ? paths[path]['post'] : undefined;
  const body = isObject(post) ? post['requestBody'] : undefined;
  const json = isObject(body) && isObject(body['content']) ? body['content']['application/json'] : undefined;
  const schema = isObject(json) ? json['schema'] : undefined;
  const ref = isObject(schema) ? schema['$ref'] : undefined;
  return typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : null;
}

/**
 * Where our spec asks more of a request than the capture's schema does, and so a generated request
 * must give it to be one we serve: per component, properties made required, and arrays given a
 * least length. Each is a rule our spec states (docs/account-records.md), answered with its own code.
 */
export interface Tightening {
  readonly required?: Readonly<Record<string, readonly string[]>>;
  readonly minItems?: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** A `format: decimal` value as a decimal is written (the captures' patterns also match "", "-" and "5."). */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A fast-check arbitrary of JSON values valid against a capture's (unrelaxed) component schema:
 * the subset of JSON Schema its request bodies use (objects, enums, date, date-time and decimal
 * strings, bounded strings, numbers, booleans, arrays, nullable, refs, discriminated oneOf).
 * Optional properties come and go; no property beyond the schema's is sent.
 */
export function requestArbitrary(contract: PlatformContract, schemaName: string, tightening: Tightening = {}): fc.Arbitrary<JsonObject> {
  const components = contract.document['components'];
  const schemas = isObject(components) && isObject(components['schemas']) ? components['schemas'] : {};
  const cache = new Map<string, fc.Arbitrary<Json>>();

  const forRef = (ref: string): fc.Arbitrary<Json> => {
    const name = ref.replace('#/components/schemas/', '');
    let arbitrary = cache.get(name);
    if (!arbitrary) {
      arbitrary = fc.constant(null).chain(() => forSchema(schemas[name] ?? {}, name));
      cache.set(name, arbitrary);
    }
    return arbitrary;
  };

  const forSchema = (schema: Json, name: string | null): fc.Arbitrary<Json> => {
    if (!isObject(schema)) return fc.constant(null);
    const base = forNonNull(schema, name);
    return schema['nullable'] === true ? fc.oneof(base, fc.constant(null)) : base;
  };

  const forNonNull = (schema: JsonObject, name: string | null): fc.Arbitrary<Json> => {
    if (typeof schema['$ref'] === 'string') return forRef(schema['$ref']);
    const oneOf = schema['oneOf'];
    const discriminator = schema['discriminator'];
    if (Array.isArray(oneOf) && isObject(discriminator) && isObject(discriminator['mapping']) && typeof discriminator['propertyName'] === 'string') {
      const property = discriminator['propertyName'];
      return fc.oneof(
        ...Object.entries(discriminator['mapping']).map(([value, ref]) =>
          forRef(String(ref)).map((branch) => ({ ...(branch as JsonObject), [property]: value }) as Json),
        ),
      );
    }
    if (Array.isArray(oneOf)) return fc.oneof(...oneOf.map((branch) => forSchema(branch, null)));
    if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as Json[]));
    switch (schema['type']) {
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.oneof(fc.integer({ min: -100_000, max: 100_000 }), fc.integer());
      case 'number':
        return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
      case 'array': {
        const min = name ? (tightening.minItems?.[name]?.[String(schema['x-property'])] ?? 0) : 0;
        return fc.array(forSchema(schema['items'] ?? {}, null), { minLength: min, maxLength: Math.max(min, 3) });
      }
      case 'string':
        return stringArbitrary(schema);
      default:
        return objectArbitrary(schema, name);
    }
  };

  const objectArbitrary = (schema: JsonObject, name: string | null): fc.Arbitrary<Json> => {
    const properties = isObject(schema['properties']) ? schema['properties'] : {};
    if (Object.keys(properties).length === 0) return fc.constant({});
    const required = new Set([...(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []), ...(name ? (tightening.required?.[name] ?? []) : [])]);
    const record: Record<string, fc.Arbitrary<Json>> = {};
    for (const [property, propertySchema] of Object.entries(properties)) {
      const withName = isObject(propertySchema) && propertySchema['type'] === 'array' ? { ...propertySchema, 'x-property': property } : propertySchema;
      record[property] = forSchema(withName, name);
    }
    const requiredKeys = Object.keys(record).filter((key) => required.has(key));
    return fc.record(record, { requiredKeys }) as fc.Arbitrary<Json>;
  };

  return forRef(`#/components/schemas/${schemaName}`) as fc.Arbitrary<JsonObject>;
}

function stringArbitrary(schema: JsonObject): fc.Arbitrary<Json> {
  const day = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true });
  if (schema['format'] === 'date') return day.map((date) => date.toISOString().slice(0, 10));
  if (schema['format'] === 'date-time') return day.map((date) => date.toISOString());
  if (schema['format'] === 'decimal' && typeof schema['pattern'] === 'string') {
    return fc.stringMatching(new RegExp(schema['pattern'])).filter((text) => DECIMAL.test(text));
  }
  const maxLength = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : 40;
  return fc.string({ maxLength });
}
