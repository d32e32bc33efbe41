import { describe, expect, it } from 'vitest';
import type { WebhookEndpointEvent } from '../../../events/webhook-endpoint.js';
import { parseLedgerEvent } from '../../../events/registry.js';
import { MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER, webhookEndpointDecider } from '../../../src/domain/webhook-endpoint/decider.js';
import { given } from '../../support/given.js';

const NOW = '2026-11-21T10:00:00.000Z';
const LATER = '2026-11-21T11:00:00.000Z';
const ID = 'we_1';
const create = {
  type: 'CreateWebhookEndpoint' as const,
  endpointId: ID,
  importSupplier: 'ACME',
  url: 'https://hooks.example.com/in',
  eventTypes: ['data_import.*', 'account.created-v1', 'data_import.*'],
  description: 'CRM',
  secretId: 'whs_1',
  supplierExists: true,
  supplierEndpointCount: 0,
  now: NOW,
};
const created: WebhookEndpointEvent = {
  type: 'WebhookEndpointCreated',
  version: 1,
  data: {
    endpointId: ID,
    importSupplier: 'ACME',
    url: 'https://hooks.example.com/in',
    eventTypes: ['data_import.*', 'account.created-v1'],
    description: 'CRM',
    secretId: 'whs_1',
    createdAt: NOW,
  },
};
const settings = {
  endpointId: ID,
  importSupplier: 'ACME',
  url: 'https://hooks.example.com/in',
  eventTypes: ['data_import.*', 'account.created-v1'],
  description: 'CRM',
  status: 'enabled' as const,
  disabledReason: null,
  disabledDetail: null,
  disabledAt: null,
};
const disabled: WebhookEndpointEvent = {
  type: 'WebhookEndpointChanged',
  version: 1,
  data: { ...settings, changes: ['status'], status: 'disabled', disabledReason: 'gone', disabledDetail: 'the receiver answered 410', disabledAt: LATER, changedAt: LATER },
};
const removed: WebhookEndpointEvent = { type: 'WebhookEndpointRemoved', version: 1, data: { endpointId: ID, importSupplier: 'ACME', removedAt: LATER } };

describe('webhook endpoint decider', () => {
  it('creates an endpoint once, its event types without repeats, naming its secret but never holding it', () => {
    given(webhookEndpointDecider).when(create).then([created]);
    given(webhookEndpointDecider, [created]).when(create).thenFails('webhook_endpoint_already_exists');
  });

  it('refuses a supplier that does not exist, and one that has the most endpoints already', () => {
    given(webhookEndpointDecider).when({ ...create, supplierExists: false }).thenFails('import_supplier_not_found');
    given(webhookEndpointDecider).when({ ...create, supplierEndpointCount: MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER }).thenFails('webhook_endpoint_limit_reached');
    given(webhookEndpointDecider).when({ ...create, supplierEndpointCount: MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER - 1 }).then([created]);
  });

  it('records a change with what changed and every setting as it is from then on; a change to the same values records nothing', () => {
    given(webhookEndpointDecider, [created])
      .when({ type: 'ChangeWebhookEndpoint', endpointId: ID, description: null, eventTypes: ['account.created-v1'], now: LATER })
      .then([
        {
          type: 'WebhookEndpointChanged',
          version: 1,
          data: { ...settings, eventTypes: ['account.created-v1'], description: null, changes: ['eventTypes', 'description'], changedAt: LATER },
        },
      ]);
    given(webhookEndpointDecider, [created])
      .when({ type: 'ChangeWebhookEndpoint', endpointId: ID, url: settings.url, eventTypes: ['data_import.*', 'account.created-v1', 'data_import.*'], status: 'enabled', now: LATER })
      .then([]);
  });

  it('disables with a reason and detail; disabling what is disabled records nothing and keeps the first reason', () => {
    given(webhookEndpointDecider, [created])
      .when({ type: 'ChangeWebhookEndpoint', endpointId: ID, status: 'disabled', reason: 'gone', detail: 'the receiver answered 410', now: LATER })
      .then([disabled]);
    given(webhookEndpointDecider, [created])
      .when({ type: 'ChangeWebhookEndpoint', endpointId: ID, status: 'disabled', now: LATER })
      .then([{ ...disabled, data: { ...disabled.data, disabledReason: 'operator', disabledDetail: null } } as WebhookEndpointEvent]);
    given(webhookEndpointDecider, [created, disabled]).when({ type: 'ChangeWebhookEndpoint', endpointId: ID, status: 'disabled', reason: 'failing', now: LATER }).then([]);
  });

  it('enabling clears the disabled state', () => {
    given(webhookEndpointDecider, [created, disabled])
      .when({ type: 'ChangeWebhookEndpoint', endpointId: ID, status: 'enabled', now: LATER })
      .then([{ type: 'WebhookEndpointChanged', version: 1, data: { ...settings, changes: ['status'], changedAt: LATER } }]);
  });

  it('rotates the secret, naming the previous one and when it stops signing', () => {
    given(webhookEndpointDecider, [created])
      .when({ type: 'RotateWebhookEndpointSecret', endpointId: ID, secretId: 'whs_2', previousSecretExpiresAt: '2026-11-22T11:00:00.000Z', now: LATER })
      .then([
        {
          type: 'WebhookEndpointSecretRotated',
          version: 1,
          data: { endpointId: ID, importSupplier: 'ACME', secretId: 'whs_2', previousSecretId: 'whs_1', previousSecretExpiresAt: '2026-11-22T11:00:00.000Z', rotatedAt: LATER },
        },
      ]);
  });

  it('requests a replay from a position of 1 or more', () => {
    const replay = { type: 'RequestWebhookEndpointReplay' as const, endpointId: ID, fromPosition: 7, since: null, now: LATER };
    given(webhookEndpointDecider, [created, disabled])
      .when(replay)
      .then([{ type: 'WebhookEndpointReplayRequested', version: 1, data: { endpointId: ID, importSupplier: 'ACME', fromPosition: 7, since: null, requestedAt: LATER } }]);
    for (const fromPosition of [0, -1, 1.5, Number.NaN]) {
      given(webhookEndpointDecider, [created]).when({ ...replay, fromPosition }).thenFails('validation_error');
    }
  });

  it('an endpoint that does not exist, or was removed, takes no command', () => {
    const commands = [
      { type: 'ChangeWebhookEndpoint' as const, endpointId: ID, status: 'disabled' as const, now: LATER },
      { type: 'RotateWebhookEndpointSecret' as const, endpointId: ID, secretId: 'whs_2', previousSecretExpiresAt: LATER, now: LATER },
      { type: 'RemoveWebhookEndpoint' as const, endpointId: ID, now: LATER },
      { type: 'RequestWebhookEndpointReplay' as const, endpointId: ID, fromPosition: 1, since: null, now: LATER },
    ];
    for (const command of commands) {
      given(webhookEndpointDecider).when(command).thenFails('webhook_endpoint_not_found');
      given(webhookEndpointDecider, [created, removed]).when(command).thenFails('webhook_endpoint_not_found');
    }
    given(webhookEndpointDecider, [created]).when({ type: 'RemoveWebhookEndpoint', endpointId: ID, now: LATER }).then([removed]);
    given(webhookEndpointDecider, [created, removed]).when(create).thenFails('webhook_endpoint_already_exists');
  });

  it('every event reads back through the registry as stored', () => {
    for (const event of [created, disabled, removed]) expect(parseLedgerEvent(event.type, event.version, event.data)).toEqual(event);
  });
});
