import { isAccountImportProcessEvent, type TransferStatus } from '../../../events/account-import-process.js';
import type { LedgerEvent } from '../../../events/registry.js';
import { assertNever } from '../assert-never.js';

type Payload = Readonly<Record<string, unknown>>;

/** The lifecycle of spec 3.2: none -> staged (re-staged any number of times) -> imported; staged -> skipped. */
export type AccountImportProcessState =
  | { readonly status: 'none' }
  | { readonly status: 'staged'; readonly payload: Payload }
  | { readonly status: 'skipped'; readonly payload: Payload }
  | {
      readonly status: 'imported';
      readonly payload: Payload;
      readonly platformAccountNumber: string;
      readonly transferStatus: TransferStatus;
    };

export const initialAccountImportProcessState: AccountImportProcessState = { status: 'none' };

export function evolveAccountImportProcess(
  state: AccountImportProcessState,
  event: LedgerEvent,
): AccountImportProcessState {
  // The stream also holds the records kept on the account (notes, payment instructions, emails, ...):
  // they leave the lifecycle as it is.
  if (!isAccountImportProcessEvent(event)) return state;
  switch (event.type) {
    case 'AccountStaged':
    case 'AccountRestaged':
      return { status: 'staged', payload: event.data.payload };
    case 'AccountProcessed':
      return state.status === 'none'
        ? state
        : {
            status: 'imported',
            payload: state.payload,
            platformAccountNumber: event.data.platformAccountNumber,
            transferStatus: 'PENDING',
          };
    case 'AccountMarkedToSkip':
      return state.status === 'none' ? state : { status: 'skipped', payload: state.payload };
    case 'AccountTransferStatusChanged':
      return state.status === 'imported' ? { ...state, transferStatus: event.data.to } : state;
    default:
      return assertNever(event);
  }
}
