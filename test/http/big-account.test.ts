import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { STATE_LIST_LIMIT } from '../../src/audit/account-state.js';
import { commandMetadata } from '../../src/application/command-handler.js';
import { fold } from '../../src/domain/decider.js';
import { ledgerDecider } from '../../src/domain/ledger/decider.js';
import { formatCents } from '../../src/domain/account-records/money.js';
import { validateImportTransactionsRequest, type TransactionInput } from '../../src/domain/ledger/transaction-payload.js';
import { importedExampleAccount, tempDocumentStore, type TempDocumentStore } from '../support/account-records.js';
import { accessToken } from '../support/http.js';
import { SUPPLIER, createTestApi, operator, type TestApi } from '../support/ledger.js';

/**
 * Reads stay bounded for an account with 10,000 transactions: its history pages, `as_of`
 * folds it into a state of bounded size and pages its events, and the feed pages.
 */

const EXT = 'LEG-0000001';
const HISTORY = `/v1/data-import/account-history/${SUPPLIER}/${EXT}/`;
const UNITS = 2;
const PER_UNIT = 5_000;
const TRANSACTIONS = UNITS * PER_UNIT;

interface Entry {
  position: number;
  type: string;
  data: Record<string, unknown>;
}
interface AsOf {
  as_of: string;
  state: Record<string, unknown> & { transactions: { transaction_id: string }[] };
  events: Entry[];
  next_after: number | null;
}

let api: TestApi;
let documents: TempDocumentStore;
let token: string;
/** The instant after the first unit: half of the transactions recorded. */
let halfway: string;

/** The transactions of the u-th unit: payments and charges of 1.00 to 1.49. */
const transactionsOf = (u: number) =>
  Array.from({ length: PER_UNIT }, (_, n) => ({
    transaction_id: `TX-${u}-${n}`,
    transaction_date: '2026-01-15',
    amount: Number((1 + (n % 50) / 100).toFixed(2)),
    type: n % 4 === 0 ? 'PAYMENT' : 'CHARGE',
    ...(n % 4 === 0 ? {} : { reason: 'IMPORTED_CHARGE' }),
  }));

beforeAll(async () => {
  documents = tempDocumentStore();
  api = await createTestApi({ documents: documents.store });
  token = await accessToken(api);
  await importedExampleAccount(api.ledger);
  // The ledger decider decides the transactions as the endpoint would, in two units of 5,000 recorded a
  // minute apart, appended to the account stream with their projections. (Through the endpoint, 1,000 a
  // request, each request folds the whole stream again: slow to build, and the write side's concern.)
  const streamId = accountImportProcessStreamId(SUPPLIER, EXT);
  const history = await api.ledger.store.readStream(streamId);
  const state = fold(ledgerDecider, history.map((stored) => stored.event));
  let version = history.length;
  for (let unit = 0; unit < UNITS; unit++) {
    api.clock.advanceSeconds(60);
    const transactions: TransactionInput[] = [];
    const all = transactionsOf(unit);
    for (let i = 0; i < all.length; i += 1_000) {
      const validation = validateImportTransactionsRequest({ import_supplier: SUPPLIER, external_account_number: EXT, transactions: all.slice(i, i + 1_000) });
      if (!validation.ok) throw new Error(JSON.stringify(validation.errors));
      transactions.push(...validation.data.transactions);
    }
    // Decided against the state before both units: their transaction ids are distinct, so the second
    // unit's decision is the one the state after the first would give.
    const events = ledgerDecider.decide(
      {
        type: 'ImportTransactions',
        importSupplier: SUPPLIER,
        externalAccountNumber: EXT,
        supplierStatus: 'Ongoing',
        transactions,
        checkPreviouslyAdded: true,
        forceAddToCurrentStatement: true,
        existingProductCodes: new Set(),
        now: api.clock.now.toISOString(),
      },
      state,
    );
    expect(events.filter((event) => event.type === 'LedgerTransactionAdded')).toHaveLength(PER_UNIT);
    version += (await api.ledger.store.appendToStream(streamId, version, events, { metadata: commandMetadata(api.ledger, operator) })).length;
    if (unit === UNITS / 2 - 1) halfway = api.clock.now.toISOString();
  }
}, 240_000);

afterAll(async () => {
  await api.close();
  documents.cleanup();
});

async function get<T>(path: string): Promise<T> {
  const res = await api.get(path, token);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/** How many events the account's stream holds, straight from the log. */
async function storedEventCount(): Promise<number> {
  const [row] = await api.execute(`SELECT count(*) AS n FROM events WHERE stream_id = '${accountImportProcessStreamId(SUPPLIER, EXT)}'`);
  return Number(row!['n']);
}

describe('an account with 10,000 transactions', () => {
  it('its history pages: 100 events by default, at most 1,000 a page, every event once, in order', async () => {
    const first = await get<{ events: Entry[]; next_after: number | null }>(HISTORY);
    expect(first.events).toHaveLength(100);
    expect(first.next_after).toBe(first.events[99]!.position);
    const positions: number[] = [];
    let transactions = 0;
    for (let after: number | null = 0; after !== null; ) {
      const page: { events: Entry[]; next_after: number | null } = await get(`${HISTORY}?after=${after}&limit=1000`);
      expect(page.events.length).toBeLessThanOrEqual(1_000);
      positions.push(...page.events.map((e) => e.position));
      transactions += page.events.filter((e) => e.type === 'LedgerTransactionAdded').length;
      after = page.next_after;
    }
    expect(transactions).toBe(TRANSACTIONS);
    expect(positions).toHaveLength(await storedEventCount());
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(positions.length);
  });

  it('as_of: the state counts every transaction, lists the latest 1,000, keeps the balance; its events page', async () => {
    const now = await get<AsOf>(`${HISTORY}?as_of=${encodeURIComponent(api.clock.now.toISOString())}`);
    const [ledger] = await api.execute(`SELECT balance_cents FROM account_ledgers WHERE external_account_number = '${EXT}'`);
    expect(now.state).toMatchObject({ import_state: 'imported', transaction_count: TRANSACTIONS, balance: formatCents(Number(ledger!['balance_cents'])) });
    expect(now.state.transactions).toHaveLength(STATE_LIST_LIMIT);
    expect(now.state.transactions[0]!.transaction_id).toBe('TX-1-4000');
    expect(now.state.transactions[STATE_LIST_LIMIT - 1]!.transaction_id).toBe('TX-1-4999');
    // The staged payload is read once, apart from the fold.
    expect((now.state['staged_payload'] as Record<string, unknown>)['external_account_number']).toBe(EXT);
    expect(now.events).toHaveLength(100);
    expect(now.next_after).toBe(now.events[99]!.position);

    const half = await get<AsOf>(`${HISTORY}?as_of=${encodeURIComponent(halfway)}&limit=1000`);
    expect(half.state).toMatchObject({ transaction_count: TRANSACTIONS / 2 });
    expect(half.state.transactions[STATE_LIST_LIMIT - 1]!.transaction_id).toBe('TX-0-4999');
    // Paging the events recorded by then: each page bounded, the last one ends before the later requests.
    let seen = 0;
    let last: AsOf = half;
    for (let page = half; ; ) {
      expect(page.events.length).toBeLessThanOrEqual(1_000);
      seen += page.events.filter((e) => e.type === 'LedgerTransactionAdded').length;
      last = page;
      if (page.next_after === null) break;
      page = await get<AsOf>(`${HISTORY}?as_of=${encodeURIComponent(halfway)}&limit=1000&after=${page.next_after}`);
    }
    expect(seen).toBe(TRANSACTIONS / 2);
    expect((last.events[last.events.length - 1]!.data['transaction'] as { transactionId: string }).transactionId).toBe('TX-0-4999');
  });

  it('the event feed pages it: at most limit events a page, every transaction once', async () => {
    let added = 0;
    for (let after = 0, pages = 0; ; pages++) {
      const page = await get<{ events: { type: string; data: { record_type?: string } }[]; next_after: number }>(`/v1/data-import/events/?after=${after}&limit=1000`);
      expect(page.events.length).toBeLessThanOrEqual(1_000);
      added += page.events.filter((e) => e.type === 'data_import.post_import.completed-v1' && e.data.record_type === 'transaction').length;
      if (page.next_after === after) break;
      after = page.next_after;
      expect(pages).toBeLessThan(100);
    }
    expect(added).toBe(TRANSACTIONS);
  });
});
