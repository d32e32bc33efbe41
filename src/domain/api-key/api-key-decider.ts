import type { ApiKeyEvent } from '../../../events/api-key.js';
import type { Decider } from '../decider.js';
import { assertNever } from '../assert-never.js';
import { DomainError } from '../errors.js';

export type ApiKeyCommand =
  | {
      readonly type: 'CreateApiKey';
      readonly keyId: string;
      readonly keyHash: string;
      readonly suppliers: readonly string[];
      /** Fact looked up before deciding: which of `suppliers` do not exist. */
      readonly unknownSuppliers: readonly string[];
      readonly label: string | null;
      readonly now: string;
    }
  | { readonly type: 'RevokeApiKey'; readonly keyId: string; readonly now: string };

export type ApiKeyState =
  | { readonly status: 'none' }
  | { readonly status: 'active' | 'revoked'; readonly suppliers: readonly string[] };

function decide(command: ApiKeyCommand, state: ApiKeyState): ApiKeyEvent[] {
  switch (command.type) {
    case 'CreateApiKey': {
      if (state.status !== 'none') throw new DomainError('api_key_already_exists', `API key ${command.keyId} already exists.`);
      const suppliers = [...new Set(command.suppliers)];
      if (suppliers.length === 0) {
        throw new DomainError('api_key_requires_supplier', 'An API key must be scoped to at least one import supplier.');
      }
      if (command.unknownSuppliers.length > 0) {
        throw new DomainError('import_supplier_not_found', `Unknown import supplier(s): ${command.unknownSuppliers.join(', ')}.`);
      }
      return [
        {
          type: 'ApiKeyCreated',
          version: 1,
          data: { keyId: command.keyId, keyHash: command.keyHash, suppliers, label: command.label, createdAt: command.now },
        },
      ];
    }
    case 'RevokeApiKey':
      if (state.status === 'none') throw new DomainError('api_key_not_found', `API key ${command.keyId} does not exist.`);
      if (state.status === 'revoked') return [];
      return [{ type: 'ApiKeyRevoked', version: 1, data: { keyId: command.keyId, revokedAt: command.now } }];
    default:
      return assertNever(command);
  }
}

function evolve(state: ApiKeyState, event: ApiKeyEvent): ApiKeyState {
  switch (event.type) {
    case 'ApiKeyCreated':
      return { status: 'active', suppliers: event.data.suppliers };
    case 'ApiKeyRevoked':
      return state.status === 'none' ? state : { ...state, status: 'revoked' };
    default:
      return assertNever(event);
  }
}

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyEvent, ApiKeyState> = {
  decide,
  evolve,
  initialState: { status: 'none' },
};
