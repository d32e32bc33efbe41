import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { LocalDirectoryDocumentStore } from '../../src/adapters/document-store.js';
import { processAccount, stageAccount } from '../../src/application/account-import-processes.js';
import { handle } from '../../src/application/command-handler.js';
import type { LedgerContext } from '../../src/application/context.js';
import { setImportSupplierConfig } from '../../src/application/operator.js';
import { validateAccountPayload, type AccountPayload } from '../../src/domain/account-import-process/account-payload.js';
import { accountImportProcessDecider } from '../../src/domain/account-import-process/decider.js';
import { SUPPLIER, TEAM, loadExample, operator } from './ledger.js';

/** The supplier's document root in the test document stores. */
export const DOCUMENT_ROOT = 'legacy-energie';

/** Every document the example payloads name (notes.json, historical-statements.json, account-domestic.json). */
export const EXAMPLE_DOCUMENTS = [
  'contracts/LEG-0000001/contract.pdf',
  'statements/LEG-0000001/2025-04.pdf',
  'statements/LEG-0000001/2025-05.pdf',
];

export interface TempDocumentStore {
  readonly directory: string;
  readonly store: LocalDirectoryDocumentStore;
  /** Writes a file at `<directory>/<root>/<path>`. */
  add(path: string, root?: string): void;
  cleanup(): void;
}

/** A local document store on a temp directory holding `paths` under DOCUMENT_ROOT. */
export function tempDocumentStore(paths: readonly string[] = EXAMPLE_DOCUMENTS): TempDocumentStore {
  const directory = mkdtempSync(join(tmpdir(), 'import-ledger-documents-'));
  const add = (path: string, root = DOCUMENT_ROOT) => {
    const file = join(directory, root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, 'pdf');
  };
  for (const path of paths) add(path);
  return { directory, store: new LocalDirectoryDocumentStore(directory), add, cleanup: () => rmSync(directory, { recursive: true, force: true }) };
}

export function examplePayload(overrides: Record<string, unknown> = {}): AccountPayload {
  const validation = validateAccountPayload({ ...loadExample('account-domestic.json'), ...overrides });
  if (!validation.ok) throw new Error(`example must validate: ${JSON.stringify(validation.errors)}`);
  return validation.data;
}

/**
 * Stages and processes account-domestic.json (LEG-0000001, last billed
 * 2025-06-30, one note, one statement ending 2025-05-31) through the
 * application, and gives the supplier the document root DOCUMENT_ROOT.
 */
export async function importedExampleAccount(ledger: LedgerContext, overrides: Record<string, unknown> = {}): Promise<AccountPayload> {
  await setImportSupplierConfig(ledger, SUPPLIER, { documentRoot: DOCUMENT_ROOT }, operator);
  const payload = examplePayload(overrides);
  await stageAccount(ledger, payload, operator);
  const result = await processAccount(
    ledger,
    { importSupplier: SUPPLIER, externalAccountNumber: payload.external_account_number, operationsTeamName: TEAM, dryRun: false },
    operator,
  );
  expect(result.platformAccountNumber).toMatch(/^A-/);
  return payload;
}

/**
 * Stages `payload` as data staged before a reference rule existed would be: the StageAccount command through
 * the command handler, without the reference facts stageAccount gathers first (products, business contracts).
 */
export async function stageBeforeReferenceRules(ledger: LedgerContext, payload: AccountPayload): Promise<void> {
  await handle(ledger, operator, accountImportProcessDecider, accountImportProcessStreamId(payload.import_supplier, payload.external_account_number), {
    type: 'StageAccount',
    importSupplier: payload.import_supplier,
    externalAccountNumber: payload.external_account_number,
    payload,
    supplierStatus: 'Ongoing',
  });
}
