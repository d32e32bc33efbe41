import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageAccount } from '../../src/application/account-import-processes.js';
import { createOperationsTeam } from '../../src/application/operator.js';
import { sourceEventTypes } from '../../src/external-events/catalogue.js';
import { SharedTail } from '../../src/relay/shared-tail.js';
import { examplePayload } from '../support/account-records.js';
import { createTestApi, operator, type TestApi } from '../support/ledger.js';

/**
 * The relay lanes of a thread read the log through one shared tail: whatever the lanes' positions, page sizes,
 * replays and the appends between their reads, a page holds exactly the relay events the log holds after its
 * start through its end, a full page starts with the first of them, and a lane behind the log's end moves on.
 */
describe('the relay lanes\' shared tail of the log', () => {
  let api: TestApi;
  let accounts = 0;
  let teams = 0;
  beforeAll(async () => {
    api = await createTestApi();
  });
  afterAll(() => api.close());

  /** Appends relay events (a staged account) and events no relay reads (a team) in the log. */
  const append = async (staged: number, other: number) => {
    for (let i = 0; i < staged; i++) await stageAccount(api.ledger, examplePayload({ external_account_number: `TAIL-${++accounts}` }), operator);
    for (let i = 0; i < other; i++) await createOperationsTeam(api.ledger, `Tail team ${++teams}`, operator);
  };

  /** The page as the log itself answers it, through `through`. */
  const direct = async (after: number, through: number, limit: number) => {
    const positions: number[] = [];
    for await (const batch of await api.ledger.log.open({ after, through, types: sourceEventTypes, limit, withBulkFields: false })) for (const e of batch) positions.push(e.globalPosition);
    return positions;
  };

  const step = fc.oneof(
    fc.record({ kind: fc.constant('append' as const), staged: fc.integer({ min: 0, max: 4 }), other: fc.integer({ min: 0, max: 2 }) }),
    fc.record({ kind: fc.constant('read' as const), lane: fc.integer({ min: 0, max: 2 }), limit: fc.integer({ min: 1, max: 6 }) }),
    fc.record({ kind: fc.constant('replay' as const), lane: fc.integer({ min: 0, max: 2 }), back: fc.integer({ min: 0, max: 30 }) }),
  );

  it('answers each lane what the log holds, whatever the lanes and the appends between their reads', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 6 }), async (steps, keep) => {
        const start = await api.ledger.log.lastPosition();
        const tail = new SharedTail(api.ledger.log, sourceEventTypes, keep);
        const lanes = [start, start, start];
        for (const s of steps) {
          if (s.kind === 'append') await append(s.staged, s.other);
          else if (s.kind === 'replay') lanes[s.lane] = Math.max(0, lanes[s.lane]! - s.back);
          else {
            const after = lanes[s.lane]!;
            const last = await api.ledger.log.lastPosition();
            const page = await tail.page(after, s.limit);
            const positions = page.events.map((e) => e.globalPosition);
            expect(page.through).toBeLessThanOrEqual(last);
            expect(positions).toEqual(await direct(after, page.through, s.limit));
            if (positions.length === s.limit) expect(positions).toEqual(await direct(after, last, s.limit));
            if (last > after) expect(page.through).toBeGreaterThan(after);
            else expect(page.through).toBe(after);
            lanes[s.lane] = page.through;
          }
        }
      }),
      { numRuns: Number(process.env['LEDGER_PROPERTY_RUNS'] ?? 25) },
    );
  });
});
