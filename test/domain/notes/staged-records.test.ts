import { describe, expect, it } from 'vitest';
import { stagedPayloadRecords } from '../../../src/domain/account-records/staged-records.js';
import { examplePayload } from '../../support/account-records.js';
import { NOW, noteCreated, ref, statementImported } from '../account-records-fixtures.js';

const account = { ...ref, now: NOW };

describe('what the staged payload brings at process time: notes and statements', () => {
  it('the domestic example: its note and its statement', () => {
    const statement = statementImported('ST-2025-05-0000001', '2025-05-01', '2025-05-31', 'staged_payload');
    expect(stagedPayloadRecords(examplePayload(), account)).toEqual([
      noteCreated(1, 'Customer asked for paper-free billing.', '2025-03-02T09:30:00Z', { source: 'staged_payload' }),
      { ...statement, data: { ...statement.data, statementPath: 'statements/LEG-0000001/2025-05.pdf' } },
    ]);
  });

  it('repeated notes are created once (same rule as notes/create/); a repeated statement_id is recorded once', () => {
    const payload = examplePayload({
      notes: [{ body: 'a' }, { body: 'a' }, { body: 'a', created_at: '2025-01-01T00:00:00Z' }],
      statements: [
        { bill_period_from_date: '2025-04-01', bill_period_to_date: '2025-04-30', statement_path: 'a.pdf', statement_id: 'S1' },
        { bill_period_from_date: '2025-05-01', bill_period_to_date: '2025-05-31', statement_path: 'b.pdf', statement_id: 'S1' },
      ],
    });
    const events = stagedPayloadRecords(payload, account);
    expect(events.map((e) => (e.type === 'AccountNoteCreated' ? [e.data.sequence, e.data.createdAt] : [e.data.statementId, e.data.billPeriodToDate]))).toEqual([
      [1, '2026-11-21T10:00:00Z'],
      [2, '2025-01-01T00:00:00Z'], // a created_at no note of that body has yet: a new note
      ['S1', '2025-04-30'],
    ]);
  });

  it('a payload without notes or statements brings nothing', () => {
    expect(stagedPayloadRecords(examplePayload({ notes: undefined, statements: undefined }), account)).toEqual([]);
  });
});
