import { GraphQLError, Kind, type FragmentDefinitionNode, type SelectionSetNode, type ValidationRule } from 'graphql';
import type { ErrorCode } from '../domain/error-codes.js';

const CODE: ErrorCode = 'validation_error';

/**
 * A validation rule: no operation selects more than `max` root fields, counting every field node an
 * alias or a fragment (spread or inline) puts at the root, so `a: obtainToken(...) b: obtainToken(...)`
 * is two. Refused before anything runs, with a GraphQL error whose `extensions.code` is `validation_error`
 * (answered 400, as every validation error). Each fragment is counted once and remembered, so a document
 * of fragments spreading each other many times costs one pass, not one per path.
 */
export function maxRootFields(max: number): ValidationRule {
  return (context) => {
    const counts = new Map<string, number>();
    const countFragment = (fragment: FragmentDefinitionNode): number => {
      const name = fragment.name.value;
      const known = counts.get(name);
      if (known !== undefined) return known;
      // A cycle counts nothing here (NoFragmentCyclesRule refuses it anyway).
      counts.set(name, 0);
      const count = countSelections(fragment.selectionSet);
      counts.set(name, count);
      return count;
    };
    const countSelections = (set: SelectionSetNode): number => {
      let count = 0;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) count += 1;
        else if (selection.kind === Kind.INLINE_FRAGMENT) count += countSelections(selection.selectionSet);
        else {
          const fragment = context.getFragment(selection.name.value);
          if (fragment) count += countFragment(fragment);
        }
      }
      return count;
    };
    return {
      OperationDefinition(operation) {
        const count = countSelections(operation.selectionSet);
        if (count > max) {
          context.reportError(
            new GraphQLError(`An operation may select at most ${max} root fields (aliases and fragments included); this one selects ${count}.`, {
              nodes: [operation],
              extensions: { code: CODE },
            }),
          );
        }
      },
    };
  };
}
