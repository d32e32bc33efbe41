import { statSync } from 'node:fs';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createImportSupplier } from '../../src/application/operator.js';
import { startWalCheckpointer } from '../../src/store/wal-checkpointer.js';
import { createTestLedger, operator } from '../support/ledger.js';

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('WAL checkpointer', () => {
  it('takes checkpoints off the server connection and keeps the WAL bounded', async () => {
    const t = createTestLedger();
    const { sqlite } = t.ledger.database;
    const checkpointer = startWalCheckpointer(sqlite, pino({ level: 'silent' }), { intervalMs: 10, truncateAboveBytes: 1 });
    try {
      expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      for (let i = 0; i < 50; i++) {
        await createImportSupplier(t.ledger, { code: `S${i}`, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
      }
      // Written by the server connection, copied into the database file and the WAL reset by the worker.
      await until(() => statSync(`${t.file}-wal`).size === 0);
      expect((await t.ledger.read.listImportSuppliers()).length).toBe(50);
    } finally {
      await checkpointer.stop();
      expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      t.close();
    }
  });
});
