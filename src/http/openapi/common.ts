import { createHash } from 'node:crypto';
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import { bodyErrorCodes, idempotencyErrorCodes, type ErrorCode } from '../../domain/error-codes.js';
import { statusOf } from '../../answers/errors.js';

export type Responses = Record<string, OpenAPIV3_1.ResponseObject>;

/**
 * zod schemas as JSON Schema 2020-12 (OpenAPI 3.1's dialect). A recursive
 * schema (the JSON values of metadata) comes out of zod with local `$defs`,
 * which mean nothing once the schema sits inside the document: they are
 * moved to `components.schemas` under a name made from their content (the
 * same definition met twice is kept once) and the references follow.
 */
export class Schemas {
  readonly components: Record<string, OpenAPIV3_1.SchemaObject> = {};

  json(schema: z.ZodType, io: 'input' | 'output'): OpenAPIV3_1.SchemaObject {
    const hoisted: Record<string, unknown> = {};
    const { $schema: _dialect, $defs: own, ...root } = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      target: 'draft-2020-12',
      override: (ctx) => documentPipeOutput(ctx, hoisted),
    }) as Record<string, unknown> & { $defs?: Record<string, unknown> };
    const $defs = { ...own, ...hoisted };
    const names = new Map<string, string>();
    const anyJson = new Set<string>();
    for (const [key, definition] of Object.entries($defs ?? {})) {
      if (isAnyJsonValue(key, definition)) anyJson.add(key);
      else names.set(key, `Schema_${createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 10)}`);
    }
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (node === null || typeof node !== 'object') return node;
      const ref = (node as { $ref?: unknown }).$ref;
      if (typeof ref === 'string' && ref.startsWith('#/$defs/')) {
        const key = ref.slice('#/$defs/'.length);
        // "Any JSON value" is what every JSON body already is: no schema (typed clients read it as unknown).
        if (anyJson.has(key)) return { description: 'Any JSON value.' };
        return { $ref: `#/components/schemas/${names.get(key)}` };
      }
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, rewrite(v)]));
    };
    for (const [key, name] of names) this.components[name] = rewrite($defs![key]) as OpenAPIV3_1.SchemaObject;
    return rewrite(root) as OpenAPIV3_1.SchemaObject;
  }

  /** A JSON request body. */
  request(schema: z.ZodType, description: string): OpenAPIV3_1.RequestBodyObject {
    return { required: true, description, content: { 'application/json': { schema: this.json(schema, 'input') } } };
  }

  /** A JSON answer. */
  answer(schema: z.ZodType, description: string): OpenAPIV3_1.ResponseObject {
    return { description, content: { 'application/json': { schema: this.json(schema, 'output') } } };
  }
}

/** zod's JSON value (`z.json()`): any of the six JSON kinds, arrays and objects of itself. */
function isAnyJsonValue(key: string, definition: unknown): boolean {
  const self = { $ref: `#/$defs/${key}` };
  const expected = {
    anyOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
      { type: 'array', items: self },
      { type: 'object', propertyNames: { type: 'string' }, additionalProperties: self },
    ],
  };
  return JSON.stringify(definition) === JSON.stringify(expected);
}

/** Spec section 7's error body, with `code` one of the codes this response can carry. */
function errorBody(codes: readonly string[]): OpenAPIV3_1.SchemaObject {
  return {
    type: 'object',
    required: ['detail', 'code', 'errors'],
    properties: {
      detail: { type: 'string' },
      code: { type: 'string', enum: [...codes] },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['detail', 'code', 'attr'],
          properties: { detail: { type: 'string' }, code: { type: 'string' }, attr: { type: 'string' } },
        },
      },
    },
    additionalProperties: true,
  };
}

/** Every request body can break these (malformed JSON, structural limits, size, media type): docs/errors.md. */
export const BODY_ERRORS = bodyErrorCodes;

/** What every `/v1/data-import/` operation can answer, whatever it does (`store_unavailable`: the database is down, reads too). */
export const AUTHENTICATED_ERRORS = ['not_authenticated', 'authentication_failed', 'throttled', 'internal_error', 'store_unavailable'] as const satisfies readonly ErrorCode[];

/** What every write can answer besides: Idempotency-Key, a stream that kept moving, the store not taking writes. */
export const WRITE_ERRORS = [
  ...BODY_ERRORS,
  ...idempotencyErrorCodes,
  'concurrency_conflict',
  'store_unavailable',
] as const satisfies readonly ErrorCode[];

/**
 * The error responses of an operation: its codes grouped by the status each
 * one is answered with on `path` (the typed code-to-status map), one response a status
 * whose body's `code` is an enum of them. `extra` adds schemas a status may
 * also answer with (transactions' TRANSACTION_IMPORT_ERROR body).
 */
export function errorResponses(codes: readonly ErrorCode[], extra: Record<string, OpenAPIV3_1.SchemaObject> = {}, path?: string): Responses {
  const byStatus = new Map<number, Set<string>>();
  for (const code of codes) {
    const status = statusOf(code, path);
    byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  }
  const responses: Responses = {};
  for (const [status, set] of [...byStatus].sort(([a], [b]) => a - b)) {
    const list = [...set].sort();
    const body = errorBody(list);
    const other = extra[String(status)];
    responses[String(status)] = {
      description: `Error codes: ${list.map((code) => `\`${code}\``).join(', ')}.`,
      content: { 'application/json': { schema: other ? { anyOf: [body, other] } : body } },
    };
  }
  return responses;
}

/** The codes of a supplier-scoped operation: a key not scoped to the supplier named is 403. */
export const scoped = (...codes: ErrorCode[]): ErrorCode[] => [...AUTHENTICATED_ERRORS, 'permission_denied', ...codes];

/**
 * Headers over Node's 16 KiB limit (the Authorization header included) are refused by the HTTP server
 * itself, before the service reads the request: on every operation, with no body.
 */
export const HEADERS_TOO_LARGE = {
  431: { description: "Request headers over Node's 16 KiB limit: refused by the HTTP server before the service reads the request (no body)." },
} as const;

/**
 * A pipe is documented as what its output side admits: the payloads' pipes are guards in front of a
 * union or an enum (`z.looseObject({ type }).pipe(z.discriminatedUnion('type', ...))`, `z.string().pipe(z.enum(...))`,
 * so that a bad `type` is reported at its own attr), and a query value's digits in front of the number
 * they stand for with its bounds. zod reads a pipe's input side as the guard alone, which would hide every
 * member's fields, the choices and the bounds from the document. A pipe into a transform keeps its input
 * side (a transform admits anything). The output's own `$defs` join the root's (`hoisted`), under names of their own.
 */
function documentPipeOutput(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }, hoisted: Record<string, unknown>): void {
  const def = (ctx.zodSchema as { _zod: { def: { type: string; out?: { _zod: { def: { type: string } } } } } })._zod.def;
  if (def.type !== 'pipe' || !def.out || def.out._zod.def.type === 'transform') return;
  const generated = z.toJSONSchema(def.out as unknown as z.ZodType, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: (inner) => documentPipeOutput(inner, hoisted),
  });
  const { $schema: _dialect, $defs, ...output } = generated as Record<string, unknown> & { $defs?: Record<string, unknown> };
  const prefix = `pipe${Object.keys(hoisted).length}_`;
  const renamed = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(renamed);
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? `#/$defs/${prefix}${v.slice(8)}` : renamed(v)]),
    );
  };
  for (const [key, definition] of Object.entries($defs ?? {})) hoisted[`${prefix}${key}`] = renamed(definition);
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, renamed(output));
}
