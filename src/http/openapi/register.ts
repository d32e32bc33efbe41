import type { Hono } from 'hono';
import { describeRoute } from 'hono-openapi';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { z } from 'zod';
import type { AppEnv } from '../env.js';
import { errorResponses, HEADERS_TOO_LARGE, Schemas } from './common.js';
import { operationDocs, type OperationDoc } from './operations.js';
import { publicOperationDocs } from './public-operations.js';
import { externalEventWebhooks, type Webhooks } from './webhooks.js';

/** `?name=` parameters from a zod object of query values. */
function queryParameters(schemas: Schemas, query: z.ZodObject): OpenAPIV3_1.ParameterObject[] {
  const schema = schemas.json(query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    // A field's description describes the parameter (where reference pages show it), not its value's schema.
    const { description, ...value } = property as { description?: string };
    return {
      name,
      in: 'query',
      required: (schema.required ?? []).includes(name),
      ...(description ? { description } : {}),
      // openapi-types' 3.1 parameter reuses its 3.0 schema type: the 2020-12 schema zod writes is cast to it.
      schema: value as OpenAPIV3_1.ParameterObject['schema'],
    };
  });
}

function spec(schemas: Schemas, operation: OperationDoc) {
  return {
    operationId: operation.operationId,
    tags: [...operation.tags],
    summary: operation.summary,
    description: operation.description,
    security: [{ Token: [] }],
    ...(operation.request ? { requestBody: operation.request } : {}),
    ...(operation.query ? { parameters: queryParameters(schemas, operation.query) } : {}),
    responses: { ...operation.responses, ...errorResponses(operation.errors, operation.errorBodies, operation.path), ...HEADERS_TOO_LARGE },
  };
}

interface Described {
  readonly operations: readonly OperationDoc[];
  readonly routes: readonly { method: string; path: string; spec: unknown }[];
  /** The external events, as the document's `webhooks`. */
  readonly webhooks: Webhooks;
  readonly components: Record<string, OpenAPIV3_1.SchemaObject>;
}

let described: Described | null = null;

/** The descriptions, converted once per process on first use (a pure function of the schemas). */
export function describedOperations(): Described {
  if (described) return described;
  const schemas = new Schemas();
  const operations = operationDocs(schemas);
  const routes = [
    ...operations.map((operation) => ({ method: operation.method, path: operation.path, spec: spec(schemas, operation) })),
    ...publicOperationDocs(schemas).map((operation) => ({ method: operation.method, path: operation.path, spec: operation.spec })),
  ];
  const webhooks = externalEventWebhooks(schemas);
  return (described = { operations, routes, webhooks, components: schemas.components });
}

/**
 * Attaches each operation's description to its route: a middleware that
 * only passes the request on, which hono-openapi finds and merges with what
 * the route itself tells (its path and parameters).
 */
export function describeOperations(app: Hono<AppEnv>): void {
  for (const route of describedOperations().routes) app.on(route.method.toUpperCase(), route.path, describeRoute(route.spec as never));
}
