import type { WebhookEndpointRow } from '../../projections/webhook-endpoints.js';
import { webhookEndpointStreamId, type WebhookEndpointStatus } from '../../events/webhook-endpoint.js';
import { webhookEndpointDecider, type WebhookEndpointSettings } from '../domain/webhook-endpoint/decider.js';
import { DomainError, isDomainError } from '../domain/errors.js';
import { checkDestination, type DestinationPolicy } from '../relay/webhooks/destination.js';
import type { RelayStore } from '../store/relay-store.js';
import { DEFAULT_SECRET_OVERLAP_MS, type WebhookAttempts, type WebhookSecrets } from '../store/webhook-storage.js';
import type { WebhookDeliveryState } from '../answers/webhook-endpoints.js';
import { handle } from './command-handler.js';
import type { Actor, LedgerContext } from './context.js';

/** What the webhook use cases need besides the ledger: the secrets' store and where deliveries may go. */
export interface WebhookContext extends LedgerContext {
  readonly webhookSecrets: WebhookSecrets;
  readonly webhookDestinations: DestinationPolicy;
}

export interface NewWebhookEndpoint {
  readonly importSupplier: string;
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly description: string | null;
}

export interface CreatedWebhookEndpoint extends WebhookEndpointSettings {
  readonly createdAt: string;
  /** Shown once: only the secret's id is ever recorded in the log. */
  readonly secret: string;
}

/** A change of settings: only the fields given change. */
export interface WebhookEndpointChange {
  readonly url?: string;
  readonly eventTypes?: readonly string[];
  readonly description?: string | null;
  readonly status?: WebhookEndpointStatus;
}

/** A replay from a log position (the first delivered again), or from the first event recorded at or after a time. */
export type ReplayFrom = { readonly fromPosition: number } | { readonly since: Date };

const hexId = (ctx: LedgerContext, prefix: string) => `${prefix}_${ctx.ids.uuid().replaceAll('-', '')}`;

export const webhookEndpointNotFound = (id: string) => new DomainError('webhook_endpoint_not_found', `No webhook endpoint ${id}.`);

/** 400 `webhook_url_refused` unless the URL may receive deliveries (src/relay/webhooks/destination.ts). */
async function assertDestination(url: string, policy: DestinationPolicy): Promise<void> {
  const refusal = await checkDestination(url, policy);
  if (refusal) throw new DomainError('webhook_url_refused', `This URL cannot receive webhooks: ${refusal.detail}`, { errors: [{ ...refusal, attr: 'url' }] });
}

/**
 * The endpoint, when it exists, is not removed and belongs to one of `suppliers` (null: an operator, any
 * supplier); else 404 `webhook_endpoint_not_found`: another supplier's endpoint is not told apart from none.
 */
export async function findScopedWebhookEndpoint(ctx: LedgerContext, id: string, suppliers: readonly string[] | null): Promise<WebhookEndpointRow> {
  const row = await ctx.read.findWebhookEndpoint(id);
  if (!row || row.removed || (suppliers !== null && !suppliers.includes(row.importSupplier))) throw webhookEndpointNotFound(id);
  return row;
}

/**
 * Registers an endpoint with a new signing secret, kept before the endpoint is recorded so that the delivery
 * engine never finds an endpoint without one (and forgotten again when the endpoint is refused).
 */
export async function createWebhookEndpoint(ctx: WebhookContext, input: NewWebhookEndpoint, actor: Actor): Promise<CreatedWebhookEndpoint> {
  await assertDestination(input.url, ctx.webhookDestinations);
  const [supplier, existing] = await Promise.all([ctx.read.findImportSupplier(input.importSupplier), ctx.read.listWebhookEndpoints([input.importSupplier])]);
  const endpointId = hexId(ctx, 'we');
  const secretId = hexId(ctx, 'whs');
  const secret = ctx.ids.webhookSecret();
  await ctx.webhookSecrets.add(endpointId, secretId, secret, ctx.clock());
  try {
    const { events, state } = await handle(ctx, actor, webhookEndpointDecider, webhookEndpointStreamId(endpointId), {
      type: 'CreateWebhookEndpoint',
      endpointId,
      secretId,
      ...input,
      supplierExists: supplier !== null,
      supplierEndpointCount: existing.length,
    });
    const created = events[0]?.event;
    if (state.status !== 'active' || created?.type !== 'WebhookEndpointCreated') throw new Error('a created webhook endpoint is active');
    return { ...state.settings, createdAt: created.data.createdAt, secret };
  } catch (error) {
    await ctx.webhookSecrets.remove(endpointId);
    throw error;
  }
}

/** Changes the given settings; a new URL is held to the destination rules. Resolves to the settings after it. */
export async function changeWebhookEndpoint(ctx: WebhookContext, id: string, change: WebhookEndpointChange, actor: Actor): Promise<WebhookEndpointSettings> {
  if (change.url !== undefined) await assertDestination(change.url, ctx.webhookDestinations);
  const { state } = await handle(ctx, actor, webhookEndpointDecider, webhookEndpointStreamId(id), { type: 'ChangeWebhookEndpoint', endpointId: id, ...change });
  if (state.status !== 'active') throw webhookEndpointNotFound(id);
  return state.settings;
}

/** Enables an endpoint (an operator's, a key's): delivery resumes from where it stopped, nothing was dropped. False when it was enabled. */
export async function enableWebhookEndpoint(ctx: LedgerContext, id: string, actor: Actor): Promise<boolean> {
  const { events } = await handle(ctx, actor, webhookEndpointDecider, webhookEndpointStreamId(id), { type: 'ChangeWebhookEndpoint', endpointId: id, status: 'enabled' });
  return events.length > 0;
}

/**
 * Disables an endpoint: by an operator, or by the delivery engine when the receiver answered 410 (`gone`)
 * or kept failing (`failing`), with what it saw (`detail`). False, and nothing recorded, when it was
 * disabled already (the first reason stays) or is gone (removed, or never was): the engine may race a removal.
 */
export async function disableWebhookEndpoint(
  ctx: LedgerContext,
  id: string,
  reason: 'operator' | 'gone' | 'failing',
  detail: string | null,
  actor: Actor,
): Promise<boolean> {
  try {
    const { events } = await handle(ctx, actor, webhookEndpointDecider, webhookEndpointStreamId(id), {
      type: 'ChangeWebhookEndpoint',
      endpointId: id,
      status: 'disabled',
      reason,
      detail,
    });
    return events.length > 0;
  } catch (error) {
    if (isDomainError(error) && error.code === 'webhook_endpoint_not_found' && reason !== 'operator') return false;
    throw error;
  }
}

/** A new signing secret; the previous one keeps signing for `overlapMs` (24 hours). The new secret is shown once. */
export async function rotateWebhookEndpointSecret(
  ctx: WebhookContext,
  id: string,
  actor: Actor,
  overlapMs = DEFAULT_SECRET_OVERLAP_MS,
): Promise<{ readonly secret: string; readonly previousSecretExpiresAt: string }> {
  await findScopedWebhookEndpoint(ctx, id, null);
  const secretId = hexId(ctx, 'whs');
  const secret = ctx.ids.webhookSecret();
  const now = ctx.clock();
  const previousSecretExpiresAt = new Date(now.getTime() + overlapMs).toISOString();
  await ctx.webhookSecrets.rotate(id, secretId, secret, now, overlapMs);
  await handle(ctx, actor, webhookEndpointDecider, webhookEndpointStreamId(id), { type: 'RotateWebhookEndpointSecret', endpointId: id, secretId, previousSecretExpiresAt });
  return { secret, previousSecretExpiresAt };
}

/** Removes the endpoint, then forgets its secrets. */
export async function removeWebhookEndpoint(ctx: WebhookContext, id: string, actor: Actor): Promise<void> {
  await handle(ctx, actor, webhookEndpointDecider, webhookEndpointStreamId(id), { type: 'RemoveWebhookEndpoint', endpointId: id });
  await ctx.webhookSecrets.remove(id);
}

/**
 * The first log position recorded at or after `at` (the position after the last one when none is): positions
 * and record times grow together, so a binary search over positions with one point read each (about 30 for a
 * billion events) finds it without scanning the log.
 */
export async function firstPositionAtOrAfter(ctx: LedgerContext, at: Date): Promise<number> {
  const wanted = at.getTime();
  let low = 1;
  let high = (await ctx.read.feedHead()) + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const [event] = await ctx.store.readAll(middle - 1, 1);
    if (!event || Date.parse(event.recordedAt) >= wanted) high = middle;
    else low = event.globalPosition + 1;
  }
  return low;
}

/** Asks for the endpoint's events to be delivered again from a position (at most the position after the log's last). */
export async function requestWebhookEndpointReplay(ctx: LedgerContext, id: string, from: ReplayFrom, actor: Actor): Promise<{ readonly fromPosition: number }> {
  let fromPosition: number;
  if ('since' in from) {
    fromPosition = await firstPositionAtOrAfter(ctx, from.since);
  } else {
    const next = (await ctx.read.feedHead()) + 1;
    if (from.fromPosition > next) {
      throw new DomainError('validation_error', `The log ends at position ${next - 1}: a replay starts at ${next} at the latest.`, { attr: 'from_position' });
    }
    fromPosition = from.fromPosition;
  }
  await handle(ctx, actor, webhookEndpointDecider, webhookEndpointStreamId(id), {
    type: 'RequestWebhookEndpointReplay',
    endpointId: id,
    fromPosition,
    since: 'since' in from ? from.since.toISOString() : null,
  });
  return { fromPosition };
}

/** The delivery state of each endpoint given: its relay's position, what waits, its latest failed attempt. */
export async function webhookDeliveryStates(
  ctx: LedgerContext & { readonly relays: RelayStore; readonly webhookAttempts: WebhookAttempts },
  ids: readonly string[],
): Promise<Map<string, WebhookDeliveryState>> {
  const [cursors, head] = await Promise.all([ctx.relays.cursors(), ctx.read.feedHead()]);
  const positions = new Map(cursors.map((c) => [c.name, c.position]));
  const states = await Promise.all(
    ids.map(async (id): Promise<[string, WebhookDeliveryState]> => {
      const position = positions.get(`webhook:${id}`) ?? null;
      const [waiting, [lastFailure]] = await Promise.all([ctx.relays.countParked(id), ctx.webhookAttempts.list(id, { failedOnly: true, limit: 1 })]);
      return [id, { position, lagEvents: position === null ? 0 : Math.max(0, head - position), waiting, lastFailure: lastFailure ?? null }];
    }),
  );
  return new Map(states);
}
