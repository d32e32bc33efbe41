import { z } from 'zod';
import { dryRunRolledBack } from '../domain/account-import-process/decider.js';
import { ofType, type Answer, type Events } from './answer.js';
import { errorAnswer } from './errors.js';

/** `import_supplier` is our spec's name, `import_supplier_code` the platform's schema's: both, so clients of either work. */
export const stageAccountResponseSchema = z.object({
  import_supplier: z.string(),
  import_supplier_code: z.string(),
  external_account_number: z.string(),
});

/** 201: the platform's ProcessAccountImportProcessCreation requires `external_account_number` beside the number. */
export const processAccountResponseSchema = z.object({ external_account_number: z.string(), platform_account_number: z.string() });

/** account-import-process/create-or-update/: 201 for the first staging, 200 for a restaging; the supplier under both names. */
export function stageAnswer(staged: { importSupplier: string; externalAccountNumber: string; created: boolean }): Answer<z.input<typeof stageAccountResponseSchema>> {
  const { importSupplier, externalAccountNumber } = staged;
  return {
    status: staged.created ? 201 : 200,
    body: { import_supplier: importSupplier, import_supplier_code: importSupplier, external_account_number: externalAccountNumber },
  };
}

/** The stage answer from the staging event alone: the request is not validated again (every keyed answer is rebuilt once). */
export function stageAnswerFromEvents(events: Events): Answer | null {
  const staged = ofType(events, 'AccountStaged')[0] ?? ofType(events, 'AccountRestaged')[0];
  if (!staged) return null;
  const { importSupplier, externalAccountNumber } = staged.event.data;
  return stageAnswer({ importSupplier, externalAccountNumber, created: staged.event.type === 'AccountStaged' });
}

/** account-import-process/process/: 201 with the platform account number. */
export function processAnswer(processed: { externalAccountNumber: string; platformAccountNumber: string }): Answer<z.input<typeof processAccountResponseSchema>> {
  return { status: 201, body: { external_account_number: processed.externalAccountNumber, platform_account_number: processed.platformAccountNumber } };
}

/** A successful dry run appends only its audit record; its answer is the dry_run_rollback error. */
export function processAnswerFromEvents(events: Events): Answer | null {
  if (ofType(events, 'AccountProcessDryRunSucceeded').length > 0) return errorAnswer(dryRunRolledBack());
  const processed = ofType(events, 'AccountProcessed')[0];
  return processed ? processAnswer(processed.event.data) : null;
}
