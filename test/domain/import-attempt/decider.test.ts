import { describe, expect, it } from 'vitest';
import { importAttemptOperations, type AccountImportAttemptRefused } from '../../../events/import-attempt.js';
import { parseLedgerEvent, UnknownEventError } from '../../../events/registry.js';
import { refusedAttemptDecider, type RecordRefusedAttempt } from '../../../src/domain/import-attempt/decider.js';
import { given } from '../../support/given.js';

const NOW = '2026-11-21T10:00:00.000Z';
const ref = { importSupplier: 'S', externalAccountNumber: 'E' };
const at = (minutes: number) => new Date(Date.parse(NOW) + minutes * 60_000).toISOString();

const refusal = (overrides: Partial<RecordRefusedAttempt> = {}): RecordRefusedAttempt => ({
  type: 'RecordRefusedAttempt',
  ...ref,
  operation: 'stage',
  dryRun: false,
  code: 'account_failed_validation',
  detail: 'Account data could not be validated.',
  errors: [{ code: 'invalid_phone_number', attr: 'customers.0.landline' }],
  accountStreamVersion: 1,
  now: NOW,
  ...overrides,
});
const recorded = (command: RecordRefusedAttempt): AccountImportAttemptRefused => {
  const { type: _type, now, ...data } = command;
  return { type: 'AccountImportAttemptRefused', version: 1, data: { ...data, errors: [...data.errors], refusedAt: now } };
};

const refusedTransactions = refusal({
  operation: 'transactions',
  code: 'transactions_failed_validation',
  detail: 'Transaction data could not be validated.',
  errors: [{ code: 'transaction_in_future', attr: 'transactions.0.transaction_date' }],
});

describe('refused attempts (the audit decider)', () => {
  it('records a refusal with its codes and paths', () => {
    given(refusedAttemptDecider).when(refusal()).then([recorded(refusal())]);
  });

  it('records a refused record import (transactions) as the same fact, naming its operation', () => {
    given(refusedAttemptDecider).when(refusedTransactions).then([recorded(refusedTransactions)]);
    given(refusedAttemptDecider, [recorded(refusedTransactions)]).when({ ...refusedTransactions, now: at(1) }).then([]);
  });

  it('records the same refusal repeated back to back once, whatever its time or wording', () => {
    given(refusedAttemptDecider, [recorded(refusal())]).when(refusal({ now: at(1), detail: 'other words' })).then([]);
  });

  it.each([
    ['another code', { code: 'account_marked_to_skip', errors: [{ code: 'account_marked_to_skip', attr: null }] }],
    ['another path', { errors: [{ code: 'invalid_phone_number', attr: 'customers.0.mobile' }] }],
    ['another operation', { operation: 'process' as const }],
    ['a record import', { operation: 'notes' as const }],
    ['a dry run', { dryRun: true }],
    ['a change of the account in between', { accountStreamVersion: 2 }],
  ])('records it again after %s', (_name, overrides) => {
    given(refusedAttemptDecider, [recorded(refusal())]).when(refusal(overrides)).then([recorded(refusal(overrides))]);
  });

  it('records A, B, A as three facts (only back to back repeats collapse)', () => {
    const a = refusal();
    const b = refusal({ code: 'account_marked_to_skip', errors: [] });
    given(refusedAttemptDecider, [recorded(a), recorded(b)]).when(a).then([recorded(a)]);
  });
});

describe('the stored refusal', () => {
  it('reads every operation at version 1, those stored before the record operations existed included; an unknown one is refused', () => {
    for (const operation of importAttemptOperations) {
      const { type, version, data } = recorded(refusal({ operation }));
      expect(parseLedgerEvent(type, version, JSON.parse(JSON.stringify(data)))).toEqual({ type, version, data });
    }
    const { type, version, data } = recorded(refusal());
    expect(() => parseLedgerEvent(type, version, { ...data, operation: 'export' })).toThrow(UnknownEventError);
  });
});
