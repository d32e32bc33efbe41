// The cut-over bench's migration folder: a supplier's whole export as `import-ledger migrate` reads it,
// written a line at a time (a million accounts in bounded memory). Every account, business and record is
// made from the spec's example bodies with its own numbers, so the folder is deterministic: account i is
// the same in every run and in the corrected folder written after the first migrate.
import { closeSync, copyFileSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { root } from './lib.js';

export const SUPPLIER = 'BENCH';
/** The vendor name the payment instructions name, served by the bench's fake vendor. */
export const VENDOR = 'STRIPE';

/** One account in BUSINESS_EVERY is a business account; BUSINESS_ACCOUNTS of them share one business. */
const BUSINESS_EVERY = 25;
const BUSINESS_ACCOUNTS = 5;
/** One account in BROKEN_EVERY has a mobile number that fails validation (always a domestic account). */
const BROKEN_EVERY = 40;
/** One domestic account in PAYMENT_INSTRUCTION_EVERY has a payment instruction of its own. */
const PAYMENT_INSTRUCTION_EVERY = 2;
/** Businesses a file of `businesses/` (an array each: migrate reads a file whole). */
const BUSINESSES_A_FILE = 500;

export const ext = (i: number) => `CUT-${String(i).padStart(7, '0')}`;
const digits = (prefix: number, i: number) => `${prefix}${String(i).padStart(13, '0')}`;
const isBusiness = (i: number) => i % BUSINESS_EVERY === 3;
const businessOf = (i: number) => Math.floor(Math.floor(i / BUSINESS_EVERY) / BUSINESS_ACCOUNTS);
const businessExt = (n: number) => `BIZ-${String(n).padStart(6, '0')}`;
export const isBroken = (i: number) => i % BROKEN_EVERY === 7;

/** An example body with its literals replaced by placeholders: split once, joined per account. */
function template(file: string, replacements: Record<string, string>): (values: Record<string, string>) => string {
  let text = JSON.stringify(JSON.parse(readFileSync(join(root, file), 'utf8')));
  for (const [literal, name] of Object.entries(replacements)) text = text.replaceAll(literal, `\u0000${name}\u0000`);
  const parts = text.split('\u0000');
  return (values) => parts.map((part, n) => (n % 2 === 1 ? values[part]! : part)).join('');
}

const domestic = template('test/fixtures/examples/account-domestic.json', {
  'LEG-0000001': 'ext',
  LEGACY_ENERGIE: 'supplier',
  '09111642617347': 'elec',
  '21461231498752': 'gas',
  MD000123ABC: 'mandate',
  'ST-2025-05-0000001': 'statement',
  '+33612345678': 'mobile',
  // A realistic ~5 KB payload, as the stage scenario of bench/run.ts sends.
  '"segment":"GOLD"': 'segment',
});
const business = template('test/fixtures/examples/account-business.json', {
  'LEG-B-0000042': 'ext',
  LEGACY_ENERGIE: 'supplier',
  '30002851234567': 'elec',
  'CTR-2025-000123': 'contract',
  'ACC-CTR-42': 'accountContract',
  MD000999XYZ: 'mandate',
});
const businessBody = template('test/fixtures/examples/business.json', {
  LEGACY_ENERGIE: 'supplier',
  'BIZ-000123': 'ext',
  'CTR-2025-000123': 'contract',
});
const padding = `"segment":"GOLD","history":"${'x'.repeat(1500)}"`;

/** Account i's stage body; `broken` gives the accounts of BROKEN_EVERY their invalid mobile number. */
export function accountLine(i: number, broken: boolean): string {
  const e = ext(i);
  if (isBusiness(i)) {
    return business({ ext: e, supplier: SUPPLIER, elec: digits(3, i), contract: `CTR-${businessExt(businessOf(i))}`, accountContract: `ACC-CTR-${e}`, mandate: `MD-${e}` });
  }
  return domestic({
    ext: e,
    supplier: SUPPLIER,
    elec: digits(1, i),
    gas: digits(2, i),
    mandate: `MD-${e}`,
    statement: `ST-${e}-0`,
    mobile: broken && isBroken(i) ? '12345' : '+33612345678',
    segment: padding,
  });
}

const notesOf = (e: string) =>
  JSON.stringify({
    import_supplier: SUPPLIER,
    external_account_number: e,
    notes: [
      { body: `Welcome call done on migration day (${e}).`, created_at: '2025-07-01T10:00:00Z', is_pinned: true, unpin_at: '2025-08-01T00:00:00Z' },
      { body: 'Asked for paper-free billing.', created_at: '2025-07-02T09:30:00Z' },
    ],
  });
const transactionsOf = (e: string) =>
  JSON.stringify({
    import_supplier: SUPPLIER,
    external_account_number: e,
    transactions: [
      { transaction_id: `${e}-TX-1`, transaction_date: '2025-07-02', amount: 35.2, type: 'CHARGE', reason: 'IMPORTED_CHARGE', display_note: 'Solde reporté de votre ancien fournisseur' },
      { transaction_id: `${e}-TX-2`, transaction_date: '2025-07-03', amount: 10.0, type: 'CREDIT', reason: 'GENERAL_CREDIT', display_note: 'Geste commercial' },
      { transaction_id: `${e}-TX-3`, transaction_date: '2025-07-05', amount: 64.5, type: 'PAYMENT', reason: 'ACCOUNT_CHARGE_PAYMENT', payment_type: 'DD_REGULAR_COLLECTION', reference: `PMT-${e}` },
    ],
  });
const statementsOf = (e: string) =>
  JSON.stringify({
    import_supplier: SUPPLIER,
    external_account_number: e,
    statements: [{ bill_period_from_date: '2025-06-01', bill_period_to_date: '2025-06-30', statement_id: `ST-${e}-1`, issued_date: '2025-07-03', number: `F-${e}`, gross_amount: 68.9 }],
  });

/** Lines gathered and handed to write(2) a megabyte at a time. */
class LineFile {
  private readonly fd: number;
  private buffer: string[] = [];
  private size = 0;
  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }
  line(text: string): void {
    this.buffer.push(text, '\n');
    this.size += text.length + 1;
    if (this.size >= 1 << 20) this.flush();
  }
  flush(): void {
    if (this.size > 0) writeSync(this.fd, this.buffer.join(''));
    this.buffer = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** What the folder holds, and so what the service must hold once it is migrated and corrected. */
export interface FolderCounts {
  readonly accounts: number;
  readonly businessAccounts: number;
  readonly brokenAccounts: number;
  readonly businesses: number;
  /** Records as the service keeps them: the staged bodies' own notes and statements included. */
  readonly notes: number;
  readonly transactions: number;
  readonly statements: number;
  readonly paymentInstructions: number;
  readonly businessPaymentInstructions: number;
  readonly bytes: number;
}

/** Account lines written between two turns of the event loop. */
const LINES_A_TURN = 1_000;

/**
 * The account lines of `accounts.ndjson`: broken ones as the supplier first exports them, or corrected. The
 * correction runs while the reads are polled, so the event loop gets a turn every LINES_A_TURN lines: a
 * million lines written at once (about half a minute) held the polls' answers, and let the service close
 * their idle keep-alive connection, which the next poll then found closed and failed the run.
 */
async function writeAccounts(path: string, accounts: number, broken: boolean): Promise<number> {
  const file = new LineFile(path);
  let bytes = 0;
  for (let i = 0; i < accounts; i++) {
    const line = accountLine(i, broken);
    bytes += line.length + 1;
    file.line(line);
    if (i % LINES_A_TURN === LINES_A_TURN - 1) await nextTurn();
  }
  file.close();
  return bytes;
}

export async function writeFolder(dir: string, accounts: number): Promise<FolderCounts> {
  mkdirSync(join(dir, 'records'), { recursive: true });
  mkdirSync(join(dir, 'businesses'), { recursive: true });
  copyFileSync(join(root, 'test/fixtures/examples/products.json'), join(dir, 'products.json'));
  let bytes = await writeAccounts(join(dir, 'accounts.ndjson'), accounts, true);

  const files = {
    notes: new LineFile(join(dir, 'records/notes.ndjson')),
    transactions: new LineFile(join(dir, 'records/transactions.ndjson')),
    statements: new LineFile(join(dir, 'records/statements.ndjson')),
    paymentInstructions: new LineFile(join(dir, 'records/payment-instructions.ndjson')),
    businessPaymentInstructions: new LineFile(join(dir, 'businesses/payment-instructions.ndjson')),
  };
  let businessAccounts = 0;
  let brokenAccounts = 0;
  let paymentInstructions = 0;
  let stagedNotes = 0;
  let stagedStatements = 0;
  const write = (file: LineFile, line: string) => {
    bytes += line.length + 1;
    file.line(line);
  };
  for (let i = 0; i < accounts; i++) {
    const e = ext(i);
    write(files.notes, notesOf(e));
    write(files.transactions, transactionsOf(e));
    write(files.statements, statementsOf(e));
    if (isBusiness(i)) {
      businessAccounts++;
      continue;
    }
    // The domestic example brings a note and a statement of its own.
    stagedNotes++;
    stagedStatements++;
    if (isBroken(i)) brokenAccounts++;
    if (i % PAYMENT_INSTRUCTION_EVERY === 0) {
      paymentInstructions++;
      write(files.paymentInstructions, JSON.stringify({ import_supplier: SUPPLIER, external_account_number: e, vendor: VENDOR, reference: `pm_${e}`, type: 'CARD' }));
    }
  }

  // The businesses the business accounts name, and one payment instruction each for its accounts.
  // Business account k (in file order) belongs to business floor(k / BUSINESS_ACCOUNTS).
  const businesses = Math.ceil(businessAccounts / BUSINESS_ACCOUNTS);
  for (let start = 0; start < businesses; start += BUSINESSES_A_FILE) {
    const file = new LineFile(join(dir, 'businesses', `businesses-${String(start / BUSINESSES_A_FILE).padStart(5, '0')}.json`));
    const last = Math.min(businesses, start + BUSINESSES_A_FILE);
    for (let n = start; n < last; n++) {
      const b = businessExt(n);
      const line = businessBody({ supplier: SUPPLIER, ext: b, contract: `CTR-${b}` });
      bytes += line.length + 2;
      file.line(`${n === start ? '[' : ','}${line}${n === last - 1 ? ']' : ''}`);
      const members: { external_account_number: string }[] = [];
      for (let k = 0; k < BUSINESS_ACCOUNTS; k++) {
        const i = (n * BUSINESS_ACCOUNTS + k) * BUSINESS_EVERY + 3;
        if (i < accounts) members.push({ external_account_number: ext(i) });
      }
      write(
        files.businessPaymentInstructions,
        JSON.stringify({ import_supplier_code: SUPPLIER, external_business_identifier: b, vendor: VENDOR, reference: `pm_${b}`, type: 'DIRECT_DEBIT', valid_from: '2025-07-01', accounts: members }),
      );
    }
    file.close();
  }
  for (const file of Object.values(files)) file.close();
  return {
    accounts,
    businessAccounts,
    brokenAccounts,
    businesses,
    notes: 2 * accounts + stagedNotes,
    transactions: 3 * accounts,
    statements: accounts + stagedStatements,
    paymentInstructions,
    businessPaymentInstructions: businesses,
    bytes,
  };
}

/** The supplier's correction of its broken accounts: `accounts.ndjson` written again with valid numbers. */
export async function correctAccounts(dir: string, accounts: number): Promise<void> {
  const corrected = join(dir, 'accounts.ndjson.corrected');
  await writeAccounts(corrected, accounts, false);
  renameSync(corrected, join(dir, 'accounts.ndjson'));
}
