import { Command, InvalidArgumentError } from 'commander';
import { accountHistory, accountHistoryAsOf, type HistoryEntry } from '../audit/account-history.js';
import { out, withLedger } from './context.js';

const HISTORY_PAGE = 1_000;

const datetime = (value: string): Date => {
  const parsed = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) || Number.isNaN(parsed.getTime())) {
    throw new InvalidArgumentError('expected an ISO 8601 date or datetime, e.g. 2026-11-21T10:00:00Z');
  }
  return parsed;
};

/** A one-line human summary of an event's data, for the terminal timeline. */
function summary(entry: HistoryEntry): string {
  const data = (entry.data ?? {}) as Record<string, unknown>;
  switch (entry.type) {
    case 'AccountProcessed':
      return `platform account ${String(data['platformAccountNumber'])}, team ${String(data['operationsTeamName'])}`;
    case 'AccountTransferStatusChanged':
      return `${String(data['from'])} -> ${String(data['to'])}`;
    case 'AccountNoteCreated':
      return JSON.stringify(String(data['body'] ?? '').slice(0, 60));
    case 'LedgerTransactionAdded': {
      const tx = (data['transaction'] ?? {}) as Record<string, unknown>;
      return `${String(tx['type'])} ${String(tx['transactionId'])} ${(Number(tx['amountCents']) / 100).toFixed(2)}`;
    }
    default: {
      const keys = Object.keys(data).filter((k) => !['importSupplier', 'externalAccountNumber', 'payload'].includes(k));
      return keys.slice(0, 4).map((k) => `${k}=${typeof data[k] === 'object' ? '…' : String(data[k])}`).join(' ');
    }
  }
}

function payloadDiff(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.flatMap((key) => {
    const a = JSON.stringify(before[key]);
    const b = JSON.stringify(after[key]);
    if (a === b) return [];
    if (a === undefined) return [`    + ${key}: ${b}`];
    if (b === undefined) return [`    - ${key}: ${a}`];
    return [`    ~ ${key}: ${a} -> ${b}`];
  });
}

export function historyCommand(account: Command): void {
  account
    .command('history')
    .description("an account's import history from the event log: a timeline, JSON lines, or its state at an instant")
    .argument('<SUPPLIER>', 'import supplier code')
    .argument('<EXTERNAL_ACCOUNT_NUMBER>', 'the account number in the legacy system')
    .option('--as-of <datetime>', 'fold the events recorded up to this instant and show the state then', datetime)
    .option('--json', 'NDJSON, one JSON object per line, as a history has no bound: one per event (with --as-of, a line with the state first)', false)
    .option('--diff', 'show what changed between successive stagings', false)
    .action(async (supplier: string, ext: string, opts: { asOf?: Date; json: boolean; diff: boolean }) => {
      await withLedger(async (ledger) => {
        let lastPayload: Record<string, unknown> | null = null;
        const print = (entry: HistoryEntry) => {
          if (opts.json) {
            out(JSON.stringify(entry));
            return;
          }
          out(`${entry.recorded_at}  ${entry.actor.padEnd(24)} ${entry.type.padEnd(30)} ${summary(entry)}`);
          const payload = (entry.data as { payload?: Record<string, unknown> }).payload;
          if (opts.diff && payload && (entry.type === 'AccountStaged' || entry.type === 'AccountRestaged')) {
            if (lastPayload) for (const line of payloadDiff(lastPayload, payload)) out(line);
            lastPayload = payload;
          }
        };
        // Page by page, so an account with a long history is printed in constant memory.
        let after: number | null = 0;
        while (after !== null) {
          const page: { after: number; limit: number } = { after, limit: HISTORY_PAGE };
          const asOf = opts.asOf ? await accountHistoryAsOf(ledger, supplier, ext, opts.asOf, page) : null;
          const r = asOf ?? (await accountHistory(ledger, supplier, ext, page));
          if (asOf && page.after === 0) {
            if (opts.json) out(JSON.stringify({ as_of: asOf.as_of, state: asOf.state }));
            else out(`state as of ${asOf.as_of}: ${asOf.state.import_state}, transfer ${asOf.state.transfer_status}, balance ${asOf.state.balance}`);
          }
          r.events.forEach(print);
          after = r.next_after;
        }
      }, supplier);
    });
}
