import { describe, expect, it } from 'vitest';
import type { LedgerEvent } from '../../events/registry.js';
import type { IdGenerator } from '../../src/application/clock-and-ids.js';
import { handle, handleMany, on } from '../../src/application/command-handler.js';
import type { Actor, LedgerContext } from '../../src/application/context.js';
import type { Decider } from '../../src/domain/decider.js';
import { operationsTeamDecider } from '../../src/domain/operations-team/operations-team-decider.js';
import type { BeforeCommit, EventStore, HandleOptions, StreamCommand } from '../../src/store/event-store.js';

type Command = { readonly type: 'Lease'; readonly leaseExpiresAt: string; readonly now: string } | { readonly type: 'Note'; readonly text: string; readonly now: string };
const decider: Decider<Command, LedgerEvent, LedgerEvent, null> = { decide: () => [], evolve: () => null, initialState: null };

const NOW = '2026-11-21T10:00:00.000Z';

/** A context whose store records what the handler gives it, with a fixed clock and counted ids. */
function recordingContext() {
  const handled: { streamId: string; command: unknown; options: HandleOptions }[] = [];
  const units: { commands: readonly StreamCommand<unknown, LedgerEvent, LedgerEvent, unknown>[]; options: HandleOptions }[] = [];
  let uuids = 0;
  let clockReads = 0;
  const store = {
    handle: async (streamId: string, _decider: unknown, command: unknown, options: HandleOptions) => {
      handled.push({ streamId, command, options });
      return { events: [], state: null, streamVersion: 0 };
    },
    handleMany: async (commands: readonly StreamCommand<unknown, LedgerEvent, LedgerEvent, unknown>[], options: HandleOptions) => {
      units.push({ commands, options });
      return commands.map(() => ({ events: [], state: null, streamVersion: 0 }));
    },
  } as unknown as EventStore;
  const ids: IdGenerator = { uuid: () => `uuid-${++uuids}`, platformAccountNumber: () => 'A-00000000', apiKey: () => ({ keyId: 'k', key: 'key' }), webhookSecret: () => 'whsec_AAAA' };
  const ctx = {
    store,
    read: {} as LedgerContext['read'],
    clock: () => {
      clockReads++;
      return new Date(NOW);
    },
    ids,
  } satisfies LedgerContext;
  return { ctx, handled, units, clockReads: () => clockReads };
}

const beforeCommit: BeforeCommit = () => {};
const requestActor: Actor = { actor: 'key_1', requestId: 'req-1', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', beforeCommit };

describe('the command handler', () => {
  it('given an actor, when a command is handled, then it is stamped with the clock, and written with the actor, a new causation id and the request hook', async () => {
    const { ctx, handled, clockReads } = recordingContext();
    const result = await handle(ctx, requestActor, operationsTeamDecider, 'operations-team-ops', { type: 'CreateOperationsTeam', name: 'ops' }, {
      guards: [{ streamId: 'import-supplier-S', expectedVersion: 3 }],
    });
    expect(handled).toEqual([
      {
        streamId: 'operations-team-ops',
        command: { type: 'CreateOperationsTeam', name: 'ops', now: NOW },
        options: {
          metadata: { actor: 'key_1', requestId: 'req-1', correlationId: 'req-1', causationId: 'uuid-1', traceparent: requestActor.traceparent },
          beforeCommit,
          guards: [{ streamId: 'import-supplier-S', expectedVersion: 3 }],
        },
      },
    ]);
    expect(handled[0]!.options.beforeCommit).toBe(beforeCommit);
    expect(clockReads()).toBe(1);
    expect(result.envelope.now.toISOString()).toBe(NOW);
  });

  it('given a worker, when its command derives a field from the time, then that is the time it is stamped with, and the events are correlated with its work item', async () => {
    const { ctx, handled, clockReads } = recordingContext();
    const worker: Actor = { actor: 'system:scheduler', requestId: null };
    await handle(ctx, worker, decider, 'lease-1', (now) => ({ type: 'Lease', leaseExpiresAt: new Date(now.getTime() + 60_000).toISOString() }), {
      correlationId: 'task-1',
      dryRun: true,
    });
    expect(handled).toEqual([
      {
        streamId: 'lease-1',
        command: { type: 'Lease', leaseExpiresAt: '2026-11-21T10:01:00.000Z', now: NOW },
        options: { metadata: { actor: 'system:scheduler', requestId: null, correlationId: 'task-1', causationId: 'uuid-1' }, dryRun: true },
      },
    ]);
    expect(clockReads()).toBe(1);
  });

  it('when a unit of commands is handled, then every command carries the one time and the unit one causation id; a write that continues it reuses its envelope', async () => {
    const { ctx, units, clockReads } = recordingContext();
    const operator: Actor = { actor: 'operator:test', requestId: null };
    const first = await handleMany(ctx, operator, [on('a', decider, { type: 'Note', text: 'one' }), on('b', decider, { type: 'Note', text: 'two' })]);
    await handleMany(ctx, operator, [on('c', decider, { type: 'Note', text: 'three' })], { envelope: first.envelope });
    expect(units.map((unit) => unit.commands.map((entry) => [entry.streamId, entry.command]))).toEqual([
      [
        ['a', { type: 'Note', text: 'one', now: NOW }],
        ['b', { type: 'Note', text: 'two', now: NOW }],
      ],
      [['c', { type: 'Note', text: 'three', now: NOW }]],
    ]);
    const metadata = { actor: 'operator:test', requestId: null, correlationId: null, causationId: 'uuid-1' };
    expect(units.map((unit) => unit.options)).toEqual([{ metadata }, { metadata }]);
    expect(clockReads()).toBe(1);
  });
});
