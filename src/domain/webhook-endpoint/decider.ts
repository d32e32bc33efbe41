import type {
  WebhookDisabledReason,
  WebhookEndpointChanged,
  WebhookEndpointEvent,
  WebhookEndpointStatus,
  webhookEndpointSettings,
} from '../../../events/webhook-endpoint.js';
import { assertNever } from '../assert-never.js';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

/** How many endpoints (not removed) one import supplier may have: the list is read whole, never paged. */
export const MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER = 20;

export type WebhookEndpointCommand =
  | {
      readonly type: 'CreateWebhookEndpoint';
      readonly endpointId: string;
      readonly importSupplier: string;
      readonly url: string;
      readonly eventTypes: readonly string[];
      readonly description: string | null;
      readonly secretId: string;
      /** Facts looked up before deciding: the supplier exists, and how many endpoints it has. */
      readonly supplierExists: boolean;
      readonly supplierEndpointCount: number;
      readonly now: string;
    }
  | {
      readonly type: 'ChangeWebhookEndpoint';
      readonly endpointId: string;
      readonly url?: string;
      readonly eventTypes?: readonly string[];
      readonly description?: string | null;
      readonly status?: WebhookEndpointStatus;
      /** Why it is disabled (with `status: 'disabled'`): `operator` unless the delivery engine says `gone` or `failing`. */
      readonly reason?: WebhookDisabledReason;
      readonly detail?: string | null;
      readonly now: string;
    }
  | {
      readonly type: 'RotateWebhookEndpointSecret';
      readonly endpointId: string;
      readonly secretId: string;
      readonly previousSecretExpiresAt: string;
      readonly now: string;
    }
  | { readonly type: 'RemoveWebhookEndpoint'; readonly endpointId: string; readonly now: string }
  | {
      readonly type: 'RequestWebhookEndpointReplay';
      readonly endpointId: string;
      readonly fromPosition: number;
      readonly since: string | null;
      readonly now: string;
    };

/** What a change event states: every setting as it is from then on. */
export type WebhookEndpointSettings = Omit<WebhookEndpointChanged['data'], 'changes' | 'changedAt'>;

export type WebhookEndpointState =
  | { readonly status: 'none' }
  | { readonly status: 'active'; readonly settings: WebhookEndpointSettings; readonly secretId: string }
  | { readonly status: 'removed' };

type Setting = (typeof webhookEndpointSettings)[number];

const notFound = (endpointId: string) => new DomainError('webhook_endpoint_not_found', `No webhook endpoint ${endpointId}.`);

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((value, i) => value === b[i]);

/** The settings after a change, and which of them it changed; disabling what is disabled keeps the first reason. */
function changed(
  before: WebhookEndpointSettings,
  command: Extract<WebhookEndpointCommand, { type: 'ChangeWebhookEndpoint' }>,
): { after: WebhookEndpointSettings; changes: Setting[] } {
  const changes: Setting[] = [];
  let after = before;
  if (command.url !== undefined && command.url !== before.url) {
    after = { ...after, url: command.url };
    changes.push('url');
  }
  if (command.eventTypes !== undefined && !sameList(command.eventTypes, before.eventTypes)) {
    after = { ...after, eventTypes: [...command.eventTypes] };
    changes.push('eventTypes');
  }
  if (command.description !== undefined && command.description !== before.description) {
    after = { ...after, description: command.description };
    changes.push('description');
  }
  if (command.status !== undefined && command.status !== before.status) {
    after =
      command.status === 'enabled'
        ? { ...after, status: 'enabled', disabledReason: null, disabledDetail: null, disabledAt: null }
        : { ...after, status: 'disabled', disabledReason: command.reason ?? 'operator', disabledDetail: command.detail ?? null, disabledAt: command.now };
    changes.push('status');
  }
  return { after, changes };
}

function decide(command: WebhookEndpointCommand, state: WebhookEndpointState): WebhookEndpointEvent[] {
  if (command.type === 'CreateWebhookEndpoint') {
    if (state.status !== 'none') throw new DomainError('webhook_endpoint_already_exists', `Webhook endpoint ${command.endpointId} already exists.`);
    if (!command.supplierExists) {
      throw new DomainError('import_supplier_not_found', `Import supplier ${command.importSupplier} does not exist.`, { attr: 'import_supplier_code' });
    }
    if (command.supplierEndpointCount >= MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER) {
      throw new DomainError(
        'webhook_endpoint_limit_reached',
        `Import supplier ${command.importSupplier} already has ${MAX_WEBHOOK_ENDPOINTS_PER_SUPPLIER} webhook endpoints: remove one first.`,
      );
    }
    const { endpointId, importSupplier, url, description, secretId, now } = command;
    return [
      {
        type: 'WebhookEndpointCreated',
        version: 1,
        data: { endpointId, importSupplier, url, eventTypes: [...new Set(command.eventTypes)], description, secretId, createdAt: now },
      },
    ];
  }
  // Every other command acts on an endpoint that exists and was not removed.
  if (state.status !== 'active') throw notFound(command.endpointId);
  const { settings } = state;
  const { endpointId, importSupplier } = settings;
  switch (command.type) {
    case 'ChangeWebhookEndpoint': {
      const eventTypes = command.eventTypes === undefined ? undefined : [...new Set(command.eventTypes)];
      const { after, changes } = changed(settings, { ...command, ...(eventTypes ? { eventTypes } : {}) });
      if (changes.length === 0) return [];
      return [{ type: 'WebhookEndpointChanged', version: 1, data: { ...after, changes, changedAt: command.now } }];
    }
    case 'RotateWebhookEndpointSecret':
      return [
        {
          type: 'WebhookEndpointSecretRotated',
          version: 1,
          data: {
            endpointId,
            importSupplier,
            secretId: command.secretId,
            previousSecretId: state.secretId,
            previousSecretExpiresAt: command.previousSecretExpiresAt,
            rotatedAt: command.now,
          },
        },
      ];
    case 'RemoveWebhookEndpoint':
      return [{ type: 'WebhookEndpointRemoved', version: 1, data: { endpointId, importSupplier, removedAt: command.now } }];
    case 'RequestWebhookEndpointReplay':
      if (!Number.isSafeInteger(command.fromPosition) || command.fromPosition < 1) {
        throw new DomainError('validation_error', 'A replay starts at a log position of 1 or more.', { attr: 'from_position' });
      }
      return [
        {
          type: 'WebhookEndpointReplayRequested',
          version: 1,
          data: { endpointId, importSupplier, fromPosition: command.fromPosition, since: command.since, requestedAt: command.now },
        },
      ];
    default:
      return assertNever(command);
  }
}

function evolve(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  switch (event.type) {
    case 'WebhookEndpointCreated': {
      const { endpointId, importSupplier, url, eventTypes, description, secretId } = event.data;
      const settings: WebhookEndpointSettings = {
        endpointId,
        importSupplier,
        url,
        eventTypes,
        description,
        status: 'enabled',
        disabledReason: null,
        disabledDetail: null,
        disabledAt: null,
      };
      return { status: 'active', settings, secretId };
    }
    case 'WebhookEndpointChanged': {
      if (state.status !== 'active') return state;
      const { changes: _changes, changedAt: _changedAt, ...settings } = event.data;
      return { ...state, settings };
    }
    case 'WebhookEndpointSecretRotated':
      return state.status === 'active' ? { ...state, secretId: event.data.secretId } : state;
    case 'WebhookEndpointRemoved':
      return { status: 'removed' };
    case 'WebhookEndpointReplayRequested':
      return state;
    default:
      return assertNever(event);
  }
}

export const webhookEndpointDecider: Decider<WebhookEndpointCommand, WebhookEndpointEvent, WebhookEndpointEvent, WebhookEndpointState> = {
  decide,
  evolve,
  initialState: { status: 'none' },
};
