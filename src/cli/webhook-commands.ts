import { Command, InvalidArgumentError, Option } from 'commander';
import type { z } from 'zod';
import { createdWebhookEndpointAnswer, deliveryView, endpointView } from '../answers/webhook-endpoints.js';
import {
  createWebhookEndpoint,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  findScopedWebhookEndpoint,
  removeWebhookEndpoint,
  requestWebhookEndpointReplay,
  rotateWebhookEndpointSecret,
  webhookDeliveryStates,
  type WebhookContext,
} from '../application/webhook-endpoints.js';
import { loadConfig } from '../config.js';
import { createWebhookEndpointRequestSchema } from '../domain/webhook-endpoint/webhook-endpoint-input.js';
import type { Ledger } from '../ledger.js';
import type { StoredAttempt } from '../store/webhook-storage.js';
import { info, JSON_OPTION_HELP, operatorActor, out, printJson, table, withLedger } from './context.js';

/** `webhook add --json`: the one command whose JSON is one object, as it creates one endpoint. */
export const WEBHOOK_ADD_JSON_HELP = 'print one JSON object (the endpoint with its secret, as the API answers) instead of lines';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const wholeNumber = (min: number, max: number) => (value: string) => {
  if (!/^\d{1,15}$/.test(value) || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
  return Number(value);
};

/** The ledger with where webhooks may go, as the service has it (LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
const withWebhooks = <T>(work: (ctx: WebhookContext & Ledger) => Promise<T>, supplier?: string): Promise<T> => {
  const allowPrivateNetworks = loadConfig().LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  return withLedger((ledger) => work({ ...ledger, webhookDestinations: { allowPrivateNetworks } }), supplier);
};

/** Arguments checked by the API's own schema: a value it refuses is bad usage (exit 2), with the field named. */
function parsed<S extends z.ZodType>(command: Command, schema: S, input: unknown, names: Record<string, string>): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${names[String(issue.path[0])] ?? String(issue.path[0] ?? '')}: ${issue.message}`);
  return command.error(`error: ${problems.join('; ')}`, { exitCode: 2 });
}

const filters = (eventTypes: readonly string[]) => (eventTypes.length === 0 ? 'all' : eventTypes.join(','));

function deliveryRow(a: StoredAttempt): Record<string, string> {
  return {
    ATTEMPTED_AT: a.attemptedAt,
    OUTCOME: a.outcome,
    STATUS: a.statusCode === null ? '-' : String(a.statusCode),
    MS: String(a.durationMs),
    EVENT: `${a.eventType}@${a.position}`,
    ATTEMPT: String(a.attempt),
    ERROR: a.error ?? '',
  };
}

export function webhookCommand(): Command {
  const webhook = new Command('webhook').description('manage webhook endpoints: where external events are delivered, signed');
  webhook
    .command('add')
    .description('register a webhook endpoint for a supplier; its signing secret is printed once')
    .argument('<URL>', 'an https URL whose host resolves to public addresses (any with LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)')
    .requiredOption('--supplier <CODE>', 'the import supplier whose events it receives')
    .option('--event <TYPE>', 'an event type or prefix.* filter it receives (repeatable; none: every type)', collect, [])
    .option('--description <text>', 'a note to tell endpoints apart')
    .option('--json', WEBHOOK_ADD_JSON_HELP, false)
    .action(async function (this: Command, url: string, opts: { supplier: string; event: string[]; description?: string; json: boolean }) {
      const input = parsed(
        this,
        createWebhookEndpointRequestSchema,
        { import_supplier_code: opts.supplier, url, event_types: opts.event, description: opts.description ?? null },
        { url: '<URL>', event_types: '--event', description: '--description' },
      );
      const created = await withWebhooks(
        (ctx) => createWebhookEndpoint(ctx, { importSupplier: opts.supplier, url: input.url, eventTypes: input.event_types ?? [], description: input.description ?? null }, operatorActor()),
        opts.supplier,
      );
      const view = createdWebhookEndpointAnswer(created).body;
      if (opts.json) return out(JSON.stringify(view, null, 2));
      info(`created webhook endpoint ${view.id} for ${view.import_supplier_code}; its secret below is shown only once`);
      out(table([view].map((v) => ({ ID: v.id, STATUS: v.status, URL: v.url, EVENT_TYPES: filters(v.event_types) }))));
      out(`secret: ${view.secret}`);
    });
  webhook
    .command('list')
    .description('list webhook endpoints (never their secrets)')
    .option('--supplier <CODE>', "only this supplier's endpoints")
    .option('--json', JSON_OPTION_HELP, false)
    .action(async (opts: { supplier?: string; json: boolean }) => {
      const views = await withLedger(async (ledger) => {
        const rows = await ledger.read.listWebhookEndpoints(opts.supplier === undefined ? undefined : [opts.supplier]);
        const states = await webhookDeliveryStates(ledger, rows.map((row) => row.id));
        return rows.map((row) => endpointView(row, states.get(row.id)!));
      }, opts.supplier);
      if (opts.json) return printJson(views);
      if (views.length === 0) return info('no webhook endpoints');
      out(
        table(
          views.map((v) => ({
            ID: v.id,
            SUPPLIER: v.import_supplier_code,
            STATUS: v.status === 'disabled' ? `disabled (${v.disabled_reason ?? ''})` : v.status,
            URL: v.url,
            EVENT_TYPES: filters(v.event_types),
            LAG: String(v.delivery.lag_events),
            WAITING: String(v.delivery.waiting),
            LAST_FAILURE: v.delivery.last_failure ? `${v.delivery.last_failure.attempted_at} ${v.delivery.last_failure.status_code ?? ''} ${v.delivery.last_failure.error ?? ''}`.trim() : '',
            DESCRIPTION: v.description ?? '',
          })),
        ),
      );
    });
  webhook
    .command('enable')
    .description('enable an endpoint: delivery resumes where it stopped, nothing was dropped meanwhile')
    .argument('<ID>', 'the endpoint id (see webhook list)')
    .action(async (id: string) => {
      const changed = await withLedger((ledger) => enableWebhookEndpoint(ledger, id, operatorActor()));
      info(changed ? `webhook endpoint ${id} enabled` : `webhook endpoint ${id} was already enabled`);
    });
  webhook
    .command('disable')
    .description('disable an endpoint: nothing is delivered to it until it is enabled again')
    .argument('<ID>', 'the endpoint id (see webhook list)')
    .action(async (id: string) => {
      const changed = await withLedger((ledger) => disableWebhookEndpoint(ledger, id, 'operator', null, operatorActor()));
      info(changed ? `webhook endpoint ${id} disabled` : `webhook endpoint ${id} was already disabled`);
    });
  webhook
    .command('remove')
    .description('remove an endpoint and forget its secrets')
    .argument('<ID>', 'the endpoint id (see webhook list)')
    .action(async (id: string) => {
      await withWebhooks((ctx) => removeWebhookEndpoint(ctx, id, operatorActor()));
      info(`webhook endpoint ${id} removed`);
    });
  webhook
    .command('rotate-secret')
    .description('give an endpoint a new signing secret, printed once; the previous one keeps signing for 24 hours')
    .argument('<ID>', 'the endpoint id (see webhook list)')
    .action(async (id: string) => {
      const rotated = await withWebhooks((ctx) => rotateWebhookEndpointSecret(ctx, id, operatorActor()));
      info(`webhook endpoint ${id} has a new secret, below, shown only once; the previous one signs too until ${rotated.previousSecretExpiresAt}`);
      out(rotated.secret);
    });
  webhook
    .command('deliveries')
    .description("an endpoint's delivery attempts, newest first")
    .argument('<ID>', 'the endpoint id (see webhook list)')
    .option('--failed', 'only the failed attempts', false)
    .addOption(new Option('--limit <N>', 'how many attempts').argParser(wholeNumber(1, 10_000)).default(50))
    .option('--json', JSON_OPTION_HELP, false)
    .action(async (id: string, opts: { failed: boolean; limit: number; json: boolean }) => {
      const attempts = await withLedger(async (ledger) => {
        await findScopedWebhookEndpoint(ledger, id, null);
        return ledger.webhookAttempts.list(id, { failedOnly: opts.failed, limit: opts.limit });
      });
      if (opts.json) {
        return printJson(attempts.map(deliveryView));
      }
      if (attempts.length === 0) return info(opts.failed ? 'no failed deliveries' : 'no deliveries yet');
      out(table(attempts.map(deliveryRow)));
    });
  webhook
    .command('replay')
    .description("deliver again what the endpoint's filter selects, from a time or a log position")
    .argument('<ID>', 'the endpoint id (see webhook list)')
    .option('--since <DATETIME>', 'from the first event recorded at or after this time (RFC 3339, e.g. 2026-11-21T10:00:00Z)')
    .addOption(new Option('--from-position <N>', 'from this log position (the first delivered again)').argParser(wholeNumber(1, Number.MAX_SAFE_INTEGER)))
    .action(async function (this: Command, id: string, opts: { since?: string; fromPosition?: number }) {
      if ((opts.since === undefined) === (opts.fromPosition === undefined)) this.error('error: give exactly one of --since and --from-position', { exitCode: 2 });
      let from: { since: Date } | { fromPosition: number };
      if (opts.since !== undefined) {
        const since = opts.since;
        if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(since) || Number.isNaN(Date.parse(since))) {
          this.error(`error: --since: not an RFC 3339 date and time with its offset: ${since}`, { exitCode: 2 });
        }
        from = { since: new Date(since) };
      } else {
        from = { fromPosition: opts.fromPosition! };
      }
      const { fromPosition } = await withLedger((ledger) => requestWebhookEndpointReplay(ledger, id, from, operatorActor()));
      info(`webhook endpoint ${id}: events from log position ${fromPosition} on will be delivered again`);
    });
  return webhook;
}
