import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WebhookEndpointEvent } from '../../../events/webhook-endpoint.js';
import { webhookEndpointDecider, type WebhookEndpointCommand, type WebhookEndpointState } from '../../../src/domain/webhook-endpoint/decider.js';
import { isDomainError } from '../../../src/domain/errors.js';

const ID = 'we_1';
const NOW = '2026-11-21T10:00:00.000Z';

const commandArb: fc.Arbitrary<WebhookEndpointCommand> = fc.oneof(
  fc.record({
    type: fc.constant('CreateWebhookEndpoint' as const),
    endpointId: fc.constant(ID),
    importSupplier: fc.constant('ACME'),
    url: fc.constantFrom('https://a.example/', 'https://b.example/'),
    eventTypes: fc.array(fc.constantFrom('data_import.*', 'account.created-v1'), { maxLength: 3 }),
    description: fc.option(fc.constantFrom('x', 'y'), { nil: null }),
    secretId: fc.constantFrom('whs_1', 'whs_2'),
    supplierExists: fc.boolean(),
    supplierEndpointCount: fc.integer({ min: 0, max: 25 }),
    now: fc.constant(NOW),
  }),
  fc.record(
    {
      type: fc.constant('ChangeWebhookEndpoint' as const),
      endpointId: fc.constant(ID),
      url: fc.constantFrom('https://a.example/', 'https://b.example/'),
      eventTypes: fc.array(fc.constantFrom('data_import.*', 'account.created-v1'), { maxLength: 3 }),
      description: fc.option(fc.constantFrom('x', 'y'), { nil: null }),
      status: fc.constantFrom('enabled' as const, 'disabled' as const),
      reason: fc.constantFrom('operator' as const, 'gone' as const, 'failing' as const),
      detail: fc.option(fc.constant('410'), { nil: null }),
      now: fc.constant(NOW),
    },
    { requiredKeys: ['type', 'endpointId', 'now'] },
  ),
  fc.record({
    type: fc.constant('RotateWebhookEndpointSecret' as const),
    endpointId: fc.constant(ID),
    secretId: fc.constantFrom('whs_2', 'whs_3'),
    previousSecretExpiresAt: fc.constant(NOW),
    now: fc.constant(NOW),
  }),
  fc.record({ type: fc.constant('RemoveWebhookEndpoint' as const), endpointId: fc.constant(ID), now: fc.constant(NOW) }),
  fc.record({
    type: fc.constant('RequestWebhookEndpointReplay' as const),
    endpointId: fc.constant(ID),
    fromPosition: fc.oneof(fc.integer({ min: -5, max: 1000 }), fc.double()),
    since: fc.constant(null),
    now: fc.constant(NOW),
  }),
);

/** Every command of the sequence decided on the state the earlier ones' events left; refusals leave it as it was. */
function run(commands: readonly WebhookEndpointCommand[]) {
  let state: WebhookEndpointState = webhookEndpointDecider.initialState;
  const log: WebhookEndpointEvent[] = [];
  const outcomes: { command: WebhookEndpointCommand; before: WebhookEndpointState; events: readonly WebhookEndpointEvent[] | null }[] = [];
  for (const command of commands) {
    const before = state;
    let events: readonly WebhookEndpointEvent[] | null = null;
    try {
      events = webhookEndpointDecider.decide(command, state);
    } catch (error) {
      if (!isDomainError(error)) throw error;
    }
    for (const event of events ?? []) state = webhookEndpointDecider.evolve(state, event);
    log.push(...(events ?? []));
    outcomes.push({ command, before, events });
  }
  return { state, log, outcomes };
}

describe('webhook endpoint decider: any sequence of commands', () => {
  it('a removed endpoint takes no command; replays start at 1 or later; disabling twice records once; the state is the fold of the log', () => {
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 30 }), (commands) => {
        const { state, log, outcomes } = run(commands);
        for (const { before, command, events } of outcomes) {
          if (before.status === 'removed') expect(events).toBeNull();
          if (command.type !== 'CreateWebhookEndpoint' && before.status !== 'active') expect(events).toBeNull();
        }
        for (const event of log) if (event.type === 'WebhookEndpointReplayRequested') expect(event.data.fromPosition).toBeGreaterThanOrEqual(1);
        // Each status change moves to the other status: never disabled twice in a row, never enabled twice.
        const statuses = log.flatMap((event) => (event.type === 'WebhookEndpointChanged' && event.data.changes.includes('status') ? [event.data.status] : []));
        statuses.forEach((status, i) => expect(status).toBe(i % 2 === 0 ? 'disabled' : 'enabled'));
        // A change event is never empty, and states its settings: the last one is the state's.
        for (const event of log) if (event.type === 'WebhookEndpointChanged') expect(event.data.changes.length).toBeGreaterThan(0);
        expect(log.reduce(webhookEndpointDecider.evolve, webhookEndpointDecider.initialState)).toEqual(state);
        expect(log.filter((event) => event.type === 'WebhookEndpointCreated').length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });
});
