import { describe, expect, it } from 'vitest';
import type { AccountCreationEvent } from '../../../events/account-creation.js';
import { accountCreationDecider, type AccountCreationCommand } from '../../../src/domain/account-creation/decider.js';
import { checkScheduleWindow } from '../../../src/domain/account-creation/schedule-window.js';
import { given } from '../../support/given.js';

const NOW = '2026-11-21T10:00:00.000Z';
const ref = { importSupplier: 'S', externalAccountNumber: 'E' };
const at = (minutes: number) => new Date(Date.parse(NOW) + minutes * 60_000).toISOString();

const scheduled = (taskId = 't1', windowStart: string | null = null, windowEnd: string | null = null): AccountCreationEvent => ({
  type: 'AccountCreationScheduled',
  version: 1,
  data: { ...ref, taskId, isDryRun: false, operationsTeamName: 'Team', windowStart, windowEnd, scheduledAt: NOW },
});
const claimed = (taskId = 't1', claimId = 'c1', leaseExpiresAt = at(1)): AccountCreationEvent => ({
  type: 'AccountCreationClaimed',
  version: 1,
  data: { ...ref, taskId, claimId, claimedAt: NOW, leaseExpiresAt },
});
const cancelled: AccountCreationEvent = { type: 'AccountCreationCancelled', version: 1, data: { ...ref, taskId: 't1', cancelledAt: NOW } };

const schedule = (window: { start: string | null; end: string | null }, now = NOW): AccountCreationCommand => ({
  type: 'ScheduleAccountCreation',
  ...ref,
  now,
  taskId: 't2',
  isDryRun: false,
  operationsTeamName: 'Team',
  window,
});
const claim = (now: string, taskId = 't1', claimId = 'c2'): AccountCreationCommand => ({ type: 'ClaimAccountCreation', ...ref, now, taskId, claimId, leaseExpiresAt: at(10) });
const finish = (claimId: string): AccountCreationCommand => ({
  type: 'FinishAccountCreation',
  ...ref,
  now: NOW,
  taskId: 't1',
  claimId,
  outcome: 'PROCESSED',
  platformAccountNumber: 'A-00000001',
  error: null,
});
const cancel: AccountCreationCommand = { type: 'CancelAccountCreation', ...ref, now: NOW };

describe('the schedule window (the platform TaskParameters rules)', () => {
  it.each([
    ['no window', null, null],
    ['a start now', NOW, null],
    ['an end exactly 4 days ahead', null, at(4 * 24 * 60)],
    ['a start before the end', at(5), at(6)],
  ])('accepts %s', (_name, start, end) => {
    expect(() => checkScheduleWindow({ start, end }, NOW)).not.toThrow();
  });

  it('refuses a start in the past, an end too far, and a start not before the end, in that order', () => {
    given(accountCreationDecider).when(schedule({ start: at(-1), end: at(99_999) })).thenFails('schedule_window_start_in_past');
    given(accountCreationDecider).when(schedule({ start: at(1), end: at(4 * 24 * 60 + 1) })).thenFails('schedule_window_end_too_far_in_future');
    given(accountCreationDecider).when(schedule({ start: at(5), end: at(5) })).thenFails('schedule_window_start__after_end');
    given(accountCreationDecider).when(schedule({ start: null, end: at(-1) })).thenFails('schedule_window_start__after_end');
  });

  it('records the window in UTC', () => {
    given(accountCreationDecider)
      .when(schedule({ start: '2026-11-21T12:00:00+01:00', end: null }))
      .then([{ type: 'AccountCreationScheduled', version: 1, data: { ...ref, taskId: 't2', isDryRun: false, operationsTeamName: 'Team', windowStart: '2026-11-21T11:00:00.000Z', windowEnd: null, scheduledAt: NOW } }]);
  });
});

describe('claims', () => {
  it('a due schedule is claimed; one not due yet, one claimed by a live lease, or one over is refused', () => {
    given(accountCreationDecider, [scheduled()]).when(claim(NOW)).then([claimed('t1', 'c2', at(10))]);
    given(accountCreationDecider, [scheduled('t1', at(5))]).when(claim(NOW)).thenFails('account_creation_not_due');
    given(accountCreationDecider, [scheduled(), claimed()]).when(claim(NOW)).thenFails('account_creation_claimed');
    given(accountCreationDecider, [scheduled(), cancelled]).when(claim(NOW)).thenFails('account_creation_not_scheduled');
    given(accountCreationDecider, []).when(claim(NOW)).thenFails('account_creation_not_scheduled');
  });

  it('a claim that ran out (its worker died) is taken over', () => {
    given(accountCreationDecider, [scheduled(), claimed('t1', 'c1', at(1))]).when(claim(at(2))).then([
      { type: 'AccountCreationClaimed', version: 1, data: { ...ref, taskId: 't1', claimId: 'c2', claimedAt: at(2), leaseExpiresAt: at(10) } },
    ]);
  });

  it('a schedule replaced by a newer one cannot be claimed under its old id', () => {
    given(accountCreationDecider, [scheduled('t1'), scheduled('t2')]).when(claim(NOW, 't1')).thenFails('account_creation_not_scheduled');
  });

  it('a window that closed before the claim ends the creation ERRORED instead of running it late', () => {
    given(accountCreationDecider, [scheduled('t1', null, at(5))]).when(claim(at(6))).then([
      {
        type: 'AccountCreationFinished',
        version: 1,
        data: { ...ref, taskId: 't1', outcome: 'ERRORED', platformAccountNumber: null, error: { code: 'schedule_window_elapsed', detail: expect.any(String) }, finishedAt: at(6) },
      },
    ]);
  });
});

describe('finishing and cancelling', () => {
  it('only the claim that holds the schedule finishes it', () => {
    given(accountCreationDecider, [scheduled(), claimed('t1', 'c1')]).when(finish('c1')).then([
      { type: 'AccountCreationFinished', version: 1, data: { ...ref, taskId: 't1', outcome: 'PROCESSED', platformAccountNumber: 'A-00000001', error: null, finishedAt: NOW } },
    ]);
    given(accountCreationDecider, [scheduled(), claimed('t1', 'c1'), claimed('t1', 'c2')]).when(finish('c1')).thenFails('account_creation_claim_lost');
    given(accountCreationDecider, [scheduled()]).when(finish('c1')).thenFails('account_creation_claim_lost');
  });

  it('a cancelled run in flight cannot finish: its transaction, the account creation with it, is refused', () => {
    given(accountCreationDecider, [scheduled(), claimed('t1', 'c1'), cancelled]).when(finish('c1')).thenFails('account_creation_not_scheduled');
  });

  it('cancels a waiting or running schedule, and refuses when nothing waits', () => {
    given(accountCreationDecider, [scheduled()]).when(cancel).then([cancelled]);
    given(accountCreationDecider, [scheduled(), claimed()]).when(cancel).then([cancelled]);
    given(accountCreationDecider, [scheduled(), cancelled]).when(cancel).thenFails('account_creation_not_scheduled');
    given(accountCreationDecider, []).when(cancel).thenFails('account_creation_not_scheduled');
  });
});
