import { importSupplierStreamId } from '../../events/import-supplier.js';
import type { ImportSupplierStatus } from '../../events/import-supplier.js';
import type { DocumentStore } from '../adapters/document-store.js';
import type { StreamGuard } from '../store/event-store.js';
import type { LedgerContext } from './context.js';

export interface SupplierFacts {
  /** Null when the supplier does not exist (the account is then not found). */
  readonly status: ImportSupplierStatus | null;
  readonly documentRoot: string | null;
  /** The supplier stream must not have moved on when appending: the command was decided on its status. */
  readonly guards: readonly StreamGuard[];
}

export async function supplierFacts(ctx: LedgerContext, code: string): Promise<SupplierFacts> {
  const supplier = await ctx.read.findImportSupplier(code);
  if (!supplier) return { status: null, documentRoot: null, guards: [] };
  return {
    status: supplier.status,
    documentRoot: supplier.documentRoot,
    guards: [{ streamId: importSupplierStreamId(code), expectedVersion: supplier.streamVersion }],
  };
}

const LOOKUPS_AT_ONCE = 16;

/** The paths among `paths` that name a document under `root` (a few look-ups at a time). */
export async function existingDocumentPaths(documents: DocumentStore, root: string | null, paths: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(paths)];
  const existing = new Set<string>();
  for (let start = 0; start < unique.length; start += LOOKUPS_AT_ONCE) {
    const batch = unique.slice(start, start + LOOKUPS_AT_ONCE);
    const found = await Promise.all(batch.map((path) => documents.exists(root, path)));
    batch.forEach((path, i) => {
      if (found[i]) existing.add(path);
    });
  }
  return existing;
}
