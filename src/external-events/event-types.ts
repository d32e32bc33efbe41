import { z } from 'zod';
import { transferStatusSchema } from '../../events/account-import-process.js';
import { ledgerTransactionTypeSchema, recordSourceSchema } from '../../events/account-records.js';
import { accountImportOperations, type RecordImportOperation } from '../../events/import-attempt.js';
import { importSupplierStatusSchema } from '../../events/import-supplier.js';
import { productMarketSchema } from '../../events/product.js';
import { populateSupplyTypeSchema } from '../../events/supply-point-populate.js';

/*
 * The external events' types: for each, when it is emitted and the one definition of its `data`, from which
 * the mapper's output is typed and the published JSON Schema is made. Never a customer's personal data: a
 * receiver that needs it asks the API with a key. Within a version fields may be added (receivers ignore
 * what they do not know); a change or removal is a new version.
 */

const text = (description: string) => z.string().meta({ description });
const importSupplier = text('The import supplier (the legacy supplier being migrated) the event belongs to.');
const noSupplier = z.null().meta({ description: 'null: the event belongs to no one supplier.' });
const account = {
  import_supplier: importSupplier,
  external_account_number: text("The account's number at the legacy supplier."),
};
const platformAccountNumber = text("The account's number on the platform.");
const business = { import_supplier: importSupplier, external_business_identifier: text("The business's identifier at the legacy supplier.") };
const taskId = text('The v2 scheduled creation (one id per schedule).');
const operationsTeamName = text('The operations team the account is assigned to.');
const refusal = {
  code: text('The refusal\'s error code, as the API answered it (docs/errors.md).'),
  errors: z
    .array(z.object({ code: z.string(), attr: z.string().nullable() }))
    .meta({ description: 'Each error item\'s code and the path of the field it is about; never its detail (it may quote the payload).' }),
};
const importRefusal = z.object({
  ...account,
  operation: z.enum(accountImportOperations).meta({ description: 'What was refused: a v1 stage or process, a v2 schedule, or its scheduled run.' }),
  ...refusal,
});

/** The kinds of records imported onto an account after its import. */
export const postImportRecordTypes = ['note', 'transaction', 'historical_statement', 'payment_instruction'] as const;
const recordType = z.enum(postImportRecordTypes).meta({ description: 'Which kind of record the request imported.' });
const postImportRefusal = z.object({ ...account, record_type: recordType, ...refusal });

const importedRecord = z.discriminatedUnion('record_type', [
  z.object({
    ...account,
    record_type: z.literal('note'),
    sequence: z.int().meta({ description: "The note's number within the account, from 1." }),
    created_at: text("The note's creation time."),
    is_pinned: z.boolean(),
    source: recordSourceSchema.meta({ description: 'Where it came from: a post-import request, the staged payload (at process time), or a transaction import (a note about moved transactions).' }),
  }),
  z.object({
    ...account,
    record_type: z.literal('transaction'),
    transaction_id: z.string(),
    transaction_type: ledgerTransactionTypeSchema,
    transaction_date: text('The date the ledger books it on (the open period\'s first day when it was moved).'),
    amount: text('Signed as sent, two decimals, in the account\'s currency (a string: never a float).'),
  }),
  z.object({
    ...account,
    record_type: z.literal('historical_statement'),
    statement_id: z.string(),
    bill_period_from_date: z.string(),
    bill_period_to_date: z.string(),
    source: recordSourceSchema.meta({ description: 'Where it came from: a post-import request, or the staged payload (at process time).' }),
  }),
  z.object({
    ...account,
    record_type: z.literal('payment_instruction'),
    platform_account_number: platformAccountNumber,
    vendor: z.string(),
    reference: text("The instruction's reference at the payment vendor."),
    instruction_type: text('CARD, DIRECT_DEBIT, ...'),
  }),
]);

const supplyPoint = {
  import_supplier: noSupplier,
  batch_id: text('The populate batch (`supply-point/populate/`): seen by the suppliers of the key that created it.'),
  supply_type: populateSupplyTypeSchema,
  identifier: text('The supply point (PRM or PCE).'),
};

interface Definition {
  /** When the event is emitted. */
  readonly description: string;
  readonly data: z.ZodType<Record<string, unknown>>;
}

/** Every external event type, by name (`domain.entity.action-vN`). */
export const externalEventDefinitions = {
  'data_import.import_process.staged-v1': {
    description: 'An account was staged for the first time (v1 create-or-update/ answered 201, or a v2 accounts/ request staged it).',
    data: z.object(account),
  },
  'data_import.import_process.restaged-v1': {
    description: 'An account not imported yet was staged again: its new data replaces the old.',
    data: z.object(account),
  },
  'data_import.import_process.complete-v1': {
    description: 'An account was imported: processed into a platform account (v1 process/ or a v2 scheduled run).',
    data: z.object({
      ...account,
      platform_account_number: platformAccountNumber,
      operations_team_name: operationsTeamName,
      business_contract_identifier: z.string().nullable().meta({ description: 'The business contract the account is linked to, if any.' }),
    }),
  },
  'data_import.import_process.dry_run_complete-v1': {
    description: 'A process dry run passed every check a real run makes; nothing of it was kept.',
    data: z.object({ ...account, platform_account_number: text('The number the run drew (a real run draws its own).'), operations_team_name: operationsTeamName }),
  },
  'data_import.import_process.error-v1': {
    description: "A stage, process or v2 schedule of the account (or its scheduled run) was refused by a rule.",
    data: importRefusal,
  },
  'data_import.import_process.dry_run_error-v1': {
    description: 'A dry run of the account\'s process (v1, or a v2 dry-run schedule) was refused by a rule.',
    data: importRefusal,
  },
  'data_import.import_process.cancelled-v1': {
    description: 'An operator marked the staged account to skip: it is neither staged nor processed again.',
    data: z.object(account),
  },
  'data_import.transfer_status.changed-v1': {
    description: "An imported account's transfer status moved on.",
    data: z.object({ ...account, from: transferStatusSchema, to: transferStatusSchema }),
  },
  'data_import.post_import.completed-v1': {
    description: 'A record was imported onto an account: a note, a transaction, a historical statement or a payment instruction (one event each).',
    data: importedRecord,
  },
  'data_import.post_import.dry_run_completed-v1': {
    description: 'A transactions dry run passed every check a real import makes; nothing of it was kept.',
    data: z.object({
      ...account,
      record_type: z.literal('transaction'),
      transaction_ids: z.array(z.string()).meta({ description: 'The transactions it would have added.' }),
    }),
  },
  'data_import.post_import.error-v1': {
    description: 'A request importing notes, transactions, historical statements or a payment instruction onto the account was refused by a rule: none of it was kept.',
    data: postImportRefusal,
  },
  'data_import.post_import.dry_run_error-v1': {
    description: 'A transactions dry run was refused by a rule.',
    data: postImportRefusal,
  },
  'data_import.account_creation.scheduled-v1': {
    description: 'A v2 accounts/ request scheduled the account\'s creation (after staging its data).',
    data: z.object({
      ...account,
      task_id: taskId,
      is_dry_run: z.boolean(),
      operations_team_name: operationsTeamName,
      schedule_window_start: z.string().nullable(),
      schedule_window_end: z.string().nullable(),
    }),
  },
  'data_import.account_creation.cancelled-v1': {
    description: 'An operator cancelled a scheduled creation before it ran.',
    data: z.object({ ...account, task_id: taskId }),
  },
  'data_import.account_creation.failed-v1': {
    description: 'A scheduled creation ran and was refused by a rule, or its window closed first (`schedule_window_elapsed`).',
    data: z.object({
      ...account,
      task_id: taskId,
      is_dry_run: z.boolean(),
      error_code: z.string().nullable().meta({ description: "The refusal's code; a run refused by a rule also emits the import_process error event, with its items." }),
    }),
  },
  'data_import.account_creation.dry_run_complete-v1': {
    description: 'A dry-run scheduled creation ran and passed every check; nothing of it was kept.',
    data: z.object({ ...account, task_id: taskId }),
  },
  'account.created-v1': {
    description: 'A scheduled creation ran and created the platform account.',
    data: z.object({ ...account, task_id: taskId, platform_account_number: platformAccountNumber }),
  },
  'data_import.import_supplier.status_changed-v1': {
    description: "An operator changed the import supplier's status (staging and processing need Ongoing).",
    data: z.object({ import_supplier: importSupplier, from: importSupplierStatusSchema, to: importSupplierStatusSchema }),
  },
  'data_import.business.created-v1': {
    description: 'A business was created.',
    data: z.object(business),
  },
  'data_import.business_contract.added-v1': {
    description: 'A contract was added to a business (each contract of a new business too).',
    data: z.object({ ...business, business_contract_identifier: z.string() }),
  },
  'data_import.business_payment_instruction.created-v1': {
    description: 'A payment instruction was recorded on a business, for some of its imported accounts.',
    data: z.object({
      ...business,
      vendor: z.string(),
      reference: text("The instruction's reference at the payment vendor."),
      instruction_type: text('CARD, DIRECT_DEBIT, ...'),
      accounts: z.array(z.object({ external_account_number: z.string(), platform_account_number: z.string() })),
    }),
  },
  'data_import.product.created-v1': {
    description: 'A product was added to the shared catalogue (seen by every supplier).',
    data: z.object({ import_supplier: noSupplier, code: z.string(), market_name: productMarketSchema }),
  },
  'data_import.product.rates_added-v1': {
    description: "Rates were added to a product of the shared catalogue (seen by every supplier).",
    data: z.object({ import_supplier: noSupplier, code: z.string(), rates_added: z.int().meta({ description: 'How many rates were added.' }) }),
  },
  'data_import.supply_point.imported-v1': {
    description: 'A supply point of a populate batch was fetched from its network operator and stored.',
    data: z.object(supplyPoint),
  },
  'data_import.supply_point.error-v1': {
    description: 'A supply point of a populate batch could not be fetched: the operator refused it, or every attempt failed.',
    data: z.object({ ...supplyPoint, reason: z.string() }),
  },
} as const satisfies Record<string, Definition>;

export type ExternalEventType = keyof typeof externalEventDefinitions;
export type ExternalEventData<T extends ExternalEventType> = z.output<(typeof externalEventDefinitions)[T]['data']>;

export const externalEventTypes = Object.keys(externalEventDefinitions) as readonly ExternalEventType[];

/** A record import operation of a refused attempt, as the record type it would have imported. */
export const recordTypeOfOperation = {
  notes: 'note',
  transactions: 'transaction',
  historical_statements: 'historical_statement',
  payment_instruction: 'payment_instruction',
} as const satisfies Record<RecordImportOperation, (typeof postImportRecordTypes)[number]>;

/** When an event was recorded, to the second. */
const timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/).meta({ description: 'When it was recorded: ISO 8601, UTC, to the second.' });

/** The body of a `type` event as sent (a webhook's request body): `{type, timestamp, data}`. */
export function externalEventSchema<T extends ExternalEventType>(type: T) {
  const { description, data } = externalEventDefinitions[type];
  return z.object({ type: z.literal(type), timestamp, data }).meta({ description });
}
