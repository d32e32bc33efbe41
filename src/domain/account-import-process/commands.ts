import type { TransferStatus } from '../../../events/account-import-process.js';
import type { ImportSupplierStatus } from '../../../events/import-supplier.js';
import type { AccountRef } from '../account-records/account-stream.js';
import type { FieldError } from '../errors.js';
import type { Validation } from '../validation/field-errors.js';
import type { AccountPayload } from './account-payload.js';

/** Stage (create or update) validated account data. */
export interface StageAccount extends AccountRef {
  readonly type: 'StageAccount';
  readonly payload: AccountPayload;
  /** Fact: the supplier's status when the command was built (guarded by the supplier stream version). */
  readonly supplierStatus: ImportSupplierStatus;
}

/** Create the platform account from the staged data. */
export interface ProcessAccount extends AccountRef {
  readonly type: 'ProcessAccount';
  /** The team named in the request or the supplier's default; null when neither is there. */
  readonly operationsTeamName: string | null;
  /** Fact: whether the named operations team exists. */
  readonly operationsTeamExists: boolean;
  readonly supplierStatus: ImportSupplierStatus;
  /** Fact: what the staged payload refers to that does not exist (products, business contracts, ...). */
  readonly referenceErrors: readonly FieldError[];
  /**
   * Fact: the business contract the staged payload's `business.business_contract_identifier` names, found
   * among the supplier's businesses (spec 1.5). Absent or null when it names none; a name not found is a
   * `business_contract_not_found` in `referenceErrors`.
   */
  readonly businessContract?: { readonly identifier: string; readonly platformBusinessId: number } | null;
  /** Generated outside the decider (`A-` + 8 uppercase hex digits); uniqueness is enforced by the projection. */
  readonly platformAccountNumber: string;
  /** Fact: the supplier's `sendEmails` (spec 1.3), guarded with its status: queue welcome emails. Absent: false. */
  readonly sendEmails?: boolean;
  /**
   * Fact: the staged payload validated on this request, read at the stream version the command's guard on
   * the account stream expects, so the decider need not validate it again. Absent: the decider validates
   * the state's payload. Never set it on a command without that guard.
   */
  readonly stagedValidation?: Validation<AccountPayload>;
}

/** Operator: the staged account is not to be migrated. */
export interface MarkAccountToSkip extends AccountRef {
  readonly type: 'MarkAccountToSkip';
}

/** Operator: the industry switch of an imported account moved on. */
export interface ChangeTransferStatus extends AccountRef {
  readonly type: 'ChangeTransferStatus';
  readonly to: TransferStatus;
}

export type AccountImportProcessCommand = StageAccount | ProcessAccount | MarkAccountToSkip | ChangeTransferStatus;
