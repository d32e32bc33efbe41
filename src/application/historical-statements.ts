import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import type { DocumentStore } from '../adapters/document-store.js';
import { statementsDecider } from '../domain/statements/decider.js';
import type { ImportHistoricalStatementsRequest } from '../domain/statements/statement-payload.js';
import { existingDocumentPaths, supplierFacts } from './account-record-facts.js';
import { handle } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';
import { withRetry } from './retry.js';

/**
 * Records historical statements on an imported account (spec 4.11), all or none, in one transaction. The
 * statement paths are facts looked up in the supplier's document root before; the supplier's status is guarded.
 */
export async function importHistoricalStatements(
  ctx: LedgerContext,
  documents: DocumentStore,
  request: ImportHistoricalStatementsRequest,
  actor: Actor,
): Promise<void> {
  await withRetry(async () => {
    const supplier = await supplierFacts(ctx, request.import_supplier);
    const paths = request.statements.flatMap((statement) => (statement.statement_path === undefined ? [] : [statement.statement_path]));
    await handle(
      ctx,
      actor,
      statementsDecider,
      accountImportProcessStreamId(request.import_supplier, request.external_account_number),
      {
        type: 'ImportHistoricalStatements',
        importSupplier: request.import_supplier,
        externalAccountNumber: request.external_account_number,
        supplierStatus: supplier.status,
        statements: request.statements,
        existingDocumentPaths: await existingDocumentPaths(documents, supplier.documentRoot, paths),
      },
      { guards: supplier.guards },
    );
  });
}
