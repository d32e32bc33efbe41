import type { DocumentedOperation, OpenApiDocument, Schema } from './openapi-requests.js';

/** An item of a refusal's `errors`: spec 7's shape. */
export interface RefusedItem {
  readonly code: string;
  readonly attr: string;
}

/** The top-level codes of a request refused for what it holds, whose items name the rules it broke. */
export const isValidationCode = (code: string): boolean => code === 'validation_error' || code === 'invalid_query_parameter' || code.endsWith('_failed_validation');

/**
 * Whether the document states the rule behind a refusal of a request it allows: JSON Schema could not say
 * it (the request is valid by its schemas), so its text must. The rule is stated when a description on the
 * way to the refused place (the query parameter's, or a body schema's from the root down to `attr`, each
 * branch of a union included) names the item's code, or when the operation's description names the code
 * and the field (a cross-field rule; `non_field_errors` is the request as a whole).
 */
export function documentStates(document: OpenApiDocument, operation: DocumentedOperation, item: RefusedItem): boolean {
  const named = (text: string, word: string) => text.includes(`\`${word}\``);
  const field = item.attr.split('.').filter((part) => !/^\d+$/.test(part)).pop();
  if (named(operation.description, item.code) && (item.attr === 'non_field_errors' || (field !== undefined && named(operation.description, field)))) return true;
  return descriptionsAt(document, operation, item.attr).some((text) => named(text, item.code));
}

/** The descriptions of the query parameter `attr`, or of the body's schemas from its root down to `attr`. */
function descriptionsAt(document: OpenApiDocument, operation: DocumentedOperation, attr: string): string[] {
  const parameter = operation.query.find((p) => p.name === attr);
  if (parameter) return [parameter.description ?? '', ...described(expanded(document, [parameter.schema ?? {}]))];
  if (!operation.body) return [];
  const texts: string[] = [];
  let nodes = expanded(document, [operation.body]);
  texts.push(...described(nodes));
  // The v2 operations report the account's places as v1 does (`customers.0.mobile`): relative to `payload`.
  nodes = [...nodes, ...expanded(document, nodes.flatMap((node): Schema[] => {
    const payload = (node['properties'] as Record<string, Schema> | undefined)?.['payload'];
    return payload ? [payload] : [];
  }))];
  for (const part of attr === 'non_field_errors' ? [] : attr.split('.')) {
    nodes = expanded(
      document,
      nodes.flatMap((node) => {
        const properties = node['properties'] as Record<string, Schema> | undefined;
        if (properties?.[part]) return [properties[part]];
        if (/^\d+$/.test(part) && node['items']) return [node['items'] as Schema];
        return [];
      }),
    );
    texts.push(...described(nodes));
  }
  return texts;
}

const described = (nodes: Schema[]) => nodes.flatMap((node) => (typeof node['description'] === 'string' ? [node['description']] : []));

/** The nodes with their references resolved and their unions' and intersections' branches alongside. */
function expanded(document: OpenApiDocument, nodes: Schema[]): Schema[] {
  const out: Schema[] = [];
  const visit = (node: Schema) => {
    const ref = node['$ref'];
    if (typeof ref === 'string') visit(document.components?.schemas?.[ref.split('/').pop() ?? ''] ?? {});
    out.push(node);
    for (const key of ['anyOf', 'oneOf', 'allOf']) for (const branch of (node[key] as Schema[] | undefined) ?? []) visit(branch);
  };
  nodes.forEach(visit);
  return out;
}
