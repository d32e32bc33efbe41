import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineProjections } from '../../../projections/index.js';
import { createImportSupplier } from '../../../src/application/operator.js';
import { openLedger, type Ledger } from '../../../src/ledger.js';
import { ProjectionVersionAheadError } from '../../../src/store/projection-maintenance.js';
import { expectErrorBody } from '../../support/http.js';
import { createTestApi, loadExample, operator, type TestApi } from '../../support/ledger.js';
import { skipWithoutPostgres } from '../../support/postgres.js';

const STAGE = '/v1/data-import/account-import-process/create-or-update/';
const account = (ext: string) => ({ ...loadExample('account-domestic.json'), external_account_number: ext });

/**
 * A rolling deploy: a newer build rebuilt a projection at a version this
 * build does not know. Every instance of the older build then refuses to
 * write (its inline projection code would write rows the new version does not
 * make), with a retryable 503, and keeps answering reads; the check is made
 * at the start of every batch, under the writers' lock.
 */
describe('instances older than the database refuse to write (mixed-version writers)', () => {
  if (skipWithoutPostgres()) return;
  let api: TestApi;
  let other: Ledger;
  let token: string;
  const declared = inlineProjections.find((p) => p.name === 'account_import_processes')!;
  beforeAll(async () => {
    api = await createTestApi({ store: 'postgres' });
    other = await openLedger(api.location);
    token = await api.token();
  });
  afterAll(async () => {
    await other.close();
    await api.close();
  });

  it('503 store_unavailable on every instance while a projection is ahead; reads go on; writes again once it is not', async () => {
    expect((await api.post(STAGE, account('LEG-1'), token)).status).toBe(201);
    const eventsBefore = (await api.tableRows('events')).length;
    // What a newer instance's start-up rebuild records.
    const record = (version: number) =>
      api.execute(
        `INSERT INTO projection_versions (name, version, rebuilt_through, updated_at) VALUES ('${declared.name}', ${version}, 0, '2026-11-23T00:00:00Z')
         ON CONFLICT (name) DO UPDATE SET version = excluded.version`,
      );
    await record(declared.version + 1);

    const refused = await api.post(STAGE, account('LEG-2'), token);
    await expectErrorBody(refused, 503, 'store_unavailable');
    expect(refused.headers.get('retry-after')).toBe('1');
    await expect(createImportSupplier(other, { code: 'NEW_ONE', status: 'Ongoing', sendEmails: false, documentRoot: null }, operator)).rejects.toBeInstanceOf(
      ProjectionVersionAheadError,
    );
    expect((await api.tableRows('events')).length).toBe(eventsBefore);
    expect((await api.get('/v1/data-import/all-account-import-processes/LEGACY_ENERGIE/', token)).status).toBe(200);

    await record(declared.version);
    expect((await api.post(STAGE, account('LEG-2'), token)).status).toBe(201);
    expect((await other.projections.verify(inlineProjections)).differences).toEqual([]);
  });
});
