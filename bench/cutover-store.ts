// Nothing stored twice: what the store holds for the supplier once the cut-over is done, counted row by
// row in the projections, against what the folder holds. verify compares record by record (a record held
// twice is "extra"); this count is the second, independent look, cheap at any size.
import Database from 'better-sqlite3';
import type { FolderCounts } from './cutover-folder.js';

const TABLES = {
  accounts: "account_import_processes WHERE import_supplier = $1 AND state = 'IMPORTED'",
  businesses: 'businesses WHERE import_supplier = $1',
  notes: 'account_notes WHERE import_supplier = $1',
  transactions: 'account_ledger_transactions WHERE import_supplier = $1',
  statements: 'account_historical_statements WHERE import_supplier = $1',
  paymentInstructions: 'payment_instructions WHERE import_supplier = $1',
  businessPaymentInstructions: 'business_payment_instructions WHERE import_supplier = $1',
} as const satisfies Partial<Record<keyof FolderCounts, string>>;

export type StoreCounts = Record<keyof typeof TABLES, number>;

export async function storeCounts(database: string, supplier: string): Promise<StoreCounts> {
  const counts = {} as StoreCounts;
  if (database.startsWith('postgres')) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      for (const [name, from] of Object.entries(TABLES)) {
        const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${from}`, [supplier]);
        counts[name as keyof StoreCounts] = Number(rows[0]!.n);
      }
    } finally {
      await client.end();
    }
    return counts;
  }
  const db = new Database(database, { readonly: true });
  try {
    for (const [name, from] of Object.entries(TABLES)) {
      counts[name as keyof StoreCounts] = (db.prepare(`SELECT count(*) AS n FROM ${from.replace('$1', '?')}`).get(supplier) as { n: number }).n;
    }
  } finally {
    db.close();
  }
  return counts;
}

/** The counts that differ from the folder's: [name, held, expected]. */
export function storeDifferences(held: StoreCounts, folder: FolderCounts): [string, number, number][] {
  const expected: StoreCounts = {
    accounts: folder.accounts,
    businesses: folder.businesses,
    notes: folder.notes,
    transactions: folder.transactions,
    statements: folder.statements,
    paymentInstructions: folder.paymentInstructions,
    businessPaymentInstructions: folder.businessPaymentInstructions,
  };
  return (Object.keys(expected) as (keyof StoreCounts)[]).filter((k) => held[k] !== expected[k]).map((k) => [k, held[k], expected[k]]);
}
