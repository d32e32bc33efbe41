import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withAttemptRetention, type AttemptRow } from '../../../src/store/webhook-storage.js';
import type { ContractLedger, LedgerFactory } from './harness.js';

const HOUR = 60 * 60 * 1000;

const attempt = (n: number, overrides: Partial<AttemptRow> = {}): AttemptRow => ({
  endpointId: 'we_a',
  messageId: `msg_${n}`,
  eventType: 'data_import.import_process.complete-v1',
  position: n,
  attempt: 1,
  statusCode: n % 3 === 0 ? 500 : 200,
  durationMs: n,
  error: n % 3 === 0 ? 'the receiver answered 500' : null,
  outcome: n % 3 === 0 ? 'failed' : 'delivered',
  attemptedAt: new Date(Date.UTC(2026, 10, 21, 10, 0, 0) + n * 1000).toISOString(),
  ...overrides,
});

/**
 * Webhook secrets and the delivery log, kept outside the event log: a rotated secret signs beside the new
 * one for the overlap, the current first; attempts are recorded in batches, read newest first (all, or the
 * failed ones) in pages, and purged past the retention.
 */
export function webhookStorageContract(open: LedgerFactory): void {
  describe('webhook secrets and delivery log', () => {
    let t: ContractLedger;
    beforeEach(async () => {
      t = await open();
    });
    afterEach(() => t.close());

    it('signs with the current secret first and a rotated one until its overlap ends; another endpoint keeps its own', async () => {
      const secrets = t.ledger.webhookSecrets;
      const start = t.clock.read();
      const at = (ms: number) => new Date(start.getTime() + ms);
      await secrets.add('we_a', 'whs_1', 'whsec_one', at(0));
      await secrets.add('we_b', 'whs_9', 'whsec_nine', at(0));
      expect(await secrets.signingSecrets('we_a', at(0))).toEqual(['whsec_one']);
      await secrets.rotate('we_a', 'whs_2', 'whsec_two', at(HOUR));
      expect(await secrets.signingSecrets('we_a', at(HOUR))).toEqual(['whsec_two', 'whsec_one']);
      expect(await secrets.signingSecrets('we_a', at(25 * HOUR - 1))).toEqual(['whsec_two', 'whsec_one']);
      expect(await secrets.signingSecrets('we_a', at(25 * HOUR))).toEqual(['whsec_two']);
      // Two rotations within the overlap: both earlier secrets still sign, the newer first.
      await secrets.rotate('we_a', 'whs_3', 'whsec_three', at(2 * HOUR), 10 * HOUR);
      expect(await secrets.signingSecrets('we_a', at(2 * HOUR))).toEqual(['whsec_three', 'whsec_two', 'whsec_one']);
      expect(await secrets.signingSecrets('we_a', at(12 * HOUR))).toEqual(['whsec_three', 'whsec_one']);
      // A rotation forgets the secrets already expired.
      await secrets.rotate('we_a', 'whs_4', 'whsec_four', at(30 * HOUR), 0);
      expect((await t.execute("SELECT secret_id FROM webhook_secrets WHERE endpoint_id = 'we_a' ORDER BY secret_id")).map((r) => r['secret_id'])).toEqual(['whs_3', 'whs_4']);
      expect(await secrets.signingSecrets('we_a', at(30 * HOUR))).toEqual(['whsec_four']);
      expect(await secrets.signingSecrets('we_b', at(30 * HOUR))).toEqual(['whsec_nine']);
      await secrets.remove('we_a');
      expect(await secrets.signingSecrets('we_a', at(30 * HOUR))).toEqual([]);
      expect(await secrets.signingSecrets('we_b', at(30 * HOUR))).toEqual(['whsec_nine']);
    });

    it('records a batch in one go, and reads one endpoint\'s attempts newest first, all or the failed ones, page by page', async () => {
      const attempts = t.ledger.webhookAttempts;
      // More than one insert chunk, and another endpoint's rows in between.
      const rows = Array.from({ length: 1_203 }, (_, i) => attempt(i + 1));
      await attempts.record(rows);
      await attempts.record([attempt(9_999, { endpointId: 'we_b' })]);
      await attempts.record([]);
      const first = await attempts.list('we_a', { failedOnly: false, limit: 5 });
      expect(first.map((a) => a.position)).toEqual([1_203, 1_202, 1_201, 1_200, 1_199]);
      expect(first[0]).toEqual({ ...rows[1_202], id: expect.any(Number) });
      const next = await attempts.list('we_a', { failedOnly: false, before: first[4]!.id, limit: 3 });
      expect(next.map((a) => a.position)).toEqual([1_198, 1_197, 1_196]);
      const failed = await attempts.list('we_a', { failedOnly: true, limit: 3 });
      expect(failed.map((a) => [a.position, a.outcome, a.statusCode, a.error])).toEqual([
        [1_203, 'failed', 500, 'the receiver answered 500'],
        [1_200, 'failed', 500, 'the receiver answered 500'],
        [1_197, 'failed', 500, 'the receiver answered 500'],
      ]);
      expect(await attempts.list('we_a', { failedOnly: true, before: failed[2]!.id, limit: 1_000 })).toHaveLength(398);
      expect((await attempts.list('we_b', { failedOnly: false, limit: 10 })).map((a) => a.messageId)).toEqual(['msg_9999']);
      expect(await attempts.list('we_none', { failedOnly: false, limit: 10 })).toEqual([]);
      // A connection error: no status, an error.
      await attempts.record([attempt(2_000, { statusCode: null, error: 'connect ECONNREFUSED', outcome: 'failed' })]);
      expect((await attempts.list('we_a', { failedOnly: true, limit: 1 }))[0]).toMatchObject({ statusCode: null, error: 'connect ECONNREFUSED' });
    });

    it('purges the attempts older than the retention, in chunks; the retention wrapper purges on its first batch and every hundredth', async () => {
      const attempts = t.ledger.webhookAttempts;
      const base = Date.UTC(2026, 10, 1);
      const rows = Array.from({ length: 12_000 }, (_, i) => attempt(i, { attemptedAt: new Date(base + i * 60_000).toISOString() }));
      await attempts.record(rows);
      expect(await attempts.purge(new Date(base + 11_000 * 60_000))).toBe(11_000);
      expect((await attempts.list('we_a', { failedOnly: false, limit: 100_000 })).map((a) => a.position)[999]).toBe(11_000);
      expect(await attempts.list('we_a', { failedOnly: false, limit: 100_000 })).toHaveLength(1_000);

      let now = new Date(base + 12_000 * 60_000);
      const kept = withAttemptRetention(attempts, () => now, 10 * 60_000);
      await kept.record([attempt(1, { attemptedAt: now.toISOString() })]);
      // Everything older than ten minutes is gone, the new one stays.
      expect(await attempts.list('we_a', { failedOnly: false, limit: 100_000 })).toHaveLength(11);
      now = new Date(now.getTime() + 60 * 60_000);
      for (let i = 0; i < 99; i++) await kept.record([attempt(2, { attemptedAt: now.toISOString() })]);
      expect(await attempts.list('we_a', { failedOnly: false, limit: 100_000 })).toHaveLength(110);
      await kept.record([attempt(3, { attemptedAt: now.toISOString() })]);
      expect(await attempts.list('we_a', { failedOnly: false, limit: 100_000 })).toHaveLength(100);
    });
  });
}
