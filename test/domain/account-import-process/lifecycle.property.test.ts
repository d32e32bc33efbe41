import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId, transferStatuses } from '../../../events/account-import-process.js';
import { accountProcessDryRunStreamId } from '../../../events/account-process-dry-run.js';
import { inlineProjections } from '../../../projections/index.js';
import { changeTransferStatus, markAccountToSkip, processAccount, stageAccount } from '../../../src/application/account-import-processes.js';
import { randomIds, type IdGenerator } from '../../../src/application/clock-and-ids.js';
import { setImportSupplierStatus } from '../../../src/application/operator.js';
import { validateAccountPayload, type AccountPayload } from '../../../src/domain/account-import-process/account-payload.js';
import { DomainError } from '../../../src/domain/errors.js';
import { createApiKey, createImportSupplier, createOperationsTeam } from '../../../src/application/operator.js';
import { createTestLedger, loadExample, operator, type TestLedger } from '../../support/ledger.js';
import { createExampleProducts } from '../../support/products.js';

const SUPPLIER = 'LEGACY_ENERGIE';
const ACCOUNTS = ['LEG-1', 'LEG-2', 'LEG-3'] as const;

const base = validateAccountPayload(loadExample('account-domestic.json'));
if (!base.ok) throw new Error('example must validate');
const payloadFor = (ext: string, variant: number): AccountPayload => ({
  ...base.data,
  external_account_number: ext,
  sales_channel: `channel-${variant}`,
});

type Command =
  | { kind: 'stage'; account: number; variant: number }
  | { kind: 'process'; account: number; dryRun: boolean; team: 'Migrations' | 'Nobody' }
  | { kind: 'skip'; account: number }
  | { kind: 'transfer'; account: number; to: (typeof transferStatuses)[number] }
  | { kind: 'supplier'; to: 'Ongoing' | 'Paused' | 'Complete' };

const account = fc.integer({ min: 0, max: ACCOUNTS.length - 1 });
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('stage' as const), account, variant: fc.nat(3) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('process' as const),
      account,
      dryRun: fc.boolean(),
      team: fc.constantFrom('Migrations' as const, 'Nobody' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('skip' as const), account }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('transfer' as const), account, to: fc.constantFrom(...transferStatuses) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('supplier' as const), to: fc.constantFrom('Ongoing' as const, 'Paused' as const, 'Complete' as const) }) },
);

/** Platform numbers from a pool of three, so generated numbers collide and the retry path is exercised. */
function collidingIds(): IdGenerator {
  let n = 0;
  return { ...randomIds, platformAccountNumber: () => `A-0000000${n++ % 3}` };
}

async function run(t: TestLedger, cmd: Command): Promise<void> {
  const ext = ACCOUNTS[cmd.kind === 'supplier' ? 0 : cmd.account]!;
  try {
    switch (cmd.kind) {
      case 'stage':
        await stageAccount(t.ledger, payloadFor(ext, cmd.variant), operator);
        break;
      case 'process':
        if (cmd.dryRun) await dryRun(t, ext, cmd.team);
        else await processAccount(t.ledger, { importSupplier: SUPPLIER, externalAccountNumber: ext, operationsTeamName: cmd.team, dryRun: false }, operator);
        break;
      case 'skip':
        await markAccountToSkip(t.ledger, SUPPLIER, ext, operator);
        break;
      case 'transfer':
        await changeTransferStatus(t.ledger, SUPPLIER, ext, cmd.to, operator);
        break;
      case 'supplier':
        await setImportSupplierStatus(t.ledger, SUPPLIER, cmd.to, operator);
        break;
    }
  } catch (error) {
    // Refusals are part of the lifecycle; anything else is a bug.
    if (!(error instanceof DomainError)) throw error;
  }
}

/**
 * A dry run leaves the account's stream and the projections as they were; a
 * successful one appends exactly one event to the account's dry-run audit
 * stream, a refused one nothing.
 */
async function dryRun(t: TestLedger, ext: string, team: string): Promise<void> {
  const { store } = t.ledger;
  const accountStream = accountImportProcessStreamId(SUPPLIER, ext);
  const auditStream = accountProcessDryRunStreamId(SUPPLIER, ext);
  const before = { account: await store.streamVersion(accountStream), audit: await store.streamVersion(auditStream), rows: await t.tableRows('account_import_processes') };
  let succeeded = false;
  try {
    await processAccount(t.ledger, { importSupplier: SUPPLIER, externalAccountNumber: ext, operationsTeamName: team, dryRun: true }, operator);
    succeeded = true;
  } finally {
    expect(await store.streamVersion(accountStream)).toBe(before.account);
    expect(await t.tableRows('account_import_processes')).toEqual(before.rows);
    const audit = await store.readStream(auditStream);
    expect(audit.length).toBe(before.audit + (succeeded ? 1 : 0));
    if (succeeded) expect(audit[audit.length - 1]!.event).toMatchObject({ type: 'AccountProcessDryRunSucceeded', data: { operationsTeamName: team, accountStreamVersion: before.account } });
  }
}

describe('account import process lifecycle (property)', () => {
  let open: TestLedger | undefined;
  afterEach(async () => {
    await open?.close();
  });

  it('for any command sequence: replay equals the projections, one import per account, contiguous versions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), async (commands) => {
        const t = await createTestLedger({ ids: collidingIds() });
        open = t;
        try {
          await createImportSupplier(t.ledger, { code: SUPPLIER, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
          await createOperationsTeam(t.ledger, 'Migrations', operator);
          await createExampleProducts(t.ledger); // process checks the agreements' tariff codes
          await createApiKey(t.ledger, { suppliers: [SUPPLIER], label: null }, operator);
          for (const cmd of commands) await run(t, cmd);

          const log = await t.ledger.store.readAll(0, 1_000_000);

          // (a) replaying the stored events reproduces every projection table exactly
          // (account_import_processes, import_suppliers, operations_teams, api_keys, service_config among them)
          const { differences } = await t.ledger.projections.verify(inlineProjections);
          expect(differences).toEqual([]);

          // (b) never imported twice, never two platform account numbers, numbers unique across accounts
          const numbers = new Map<string, string>();
          for (const ext of ACCOUNTS) {
            const stream = await t.ledger.store.readStream(accountImportProcessStreamId(SUPPLIER, ext));
            const processed = stream.filter((e) => e.event.type === 'AccountProcessed');
            expect(processed.length).toBeLessThanOrEqual(1);
            for (const e of processed) {
              if (e.event.type !== 'AccountProcessed') continue;
              expect(numbers.has(e.event.data.platformAccountNumber)).toBe(false);
              numbers.set(e.event.data.platformAccountNumber, ext);
            }
            // (c) stream versions are contiguous from 1
            expect(stream.map((e) => e.streamPosition)).toEqual(stream.map((_, i) => i + 1));
          }
          // (c) for every stream of the log
          const byStream = new Map<string, number[]>();
          for (const e of log) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e.streamPosition]);
          for (const positions of byStream.values()) expect(positions).toEqual(positions.map((_, i) => i + 1));
        } finally {
          await t.close();
          open = undefined;
        }
      }),
      { numRuns: 60 },
    );
  });
});
