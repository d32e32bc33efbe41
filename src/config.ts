import { z } from 'zod';
import { DEFAULT_OPERATOR_TIMEOUT_MS } from './adapters/network-operators.js';
import { DEFAULT_PAYMENT_VENDOR_TIMEOUT_MS, parsePaymentVendors } from './adapters/payment-vendors.js';
import { DEFAULT_MAIL_FROM, DEFAULT_SMTP_TIMEOUT_MS } from './adapters/smtp-defaults.js';
import { DEFAULT_RETRY_SCHEDULE, parseDuration, parseRetrySchedule } from './relay/webhooks/retry-schedule.js';
import { DEFAULT_WEBHOOK_ATTEMPT_RETENTION_DAYS } from './store/webhook-storage.js';

/** Request bodies larger than this are refused with 413 (`LEDGER_MAX_BODY_BYTES`). */
export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;

/** Configuration from environment variables, parsed once at the entry point (docs/operations.md "Configuration"). */
export const envSchema = z.object({
  LEDGER_DATABASE: z.string().min(1).default('./data/ledger.db'),
  // SQLite: where the service's writes run (`inline`: the event loop; `thread`: a writer thread of their own).
  LEDGER_SQLITE_WRITER: z.enum(['inline', 'thread']).default('inline'),
  // Set, it selects PostgreSQL (several instances on one database) instead of the SQLite file.
  LEDGER_DATABASE_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  // Prometheus metrics on a port of their own (docs/operations.md "Metrics"): unset (or empty) = off.
  LEDGER_METRICS_PORT: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
  // The metrics listener's address, loopback unless set: it needs no token and names every supplier.
  LEDGER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  // After SIGTERM: how long /readyz answers 503 `draining` while the service still serves, before it stops (docs/operations.md "Probes").
  LEDGER_DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(300_000).default(0),
  LEDGER_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(DEFAULT_MAX_BODY_BYTES),
  LEDGER_TOKEN_SECRET: z.string().min(32, 'LEDGER_TOKEN_SECRET must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Which requests get a log line of their own: `failures` (4xx, 5xx, slower than a second) or `all`.
  LEDGER_ACCESS_LOG: z.enum(['all', 'failures']).default('failures'),
  NODE_ENV: z.string().default('development'),
  // Supply point pre-population (docs/supply-points.md): unset (or empty) means "not configured".
  LEDGER_ELECTRICITY_OPERATOR_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^https?$/ }).optional()),
  LEDGER_GAS_OPERATOR_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^https?$/ }).optional()),
  LEDGER_OPERATOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(DEFAULT_OPERATOR_TIMEOUT_MS),
  // Payment instructions and customer emails (docs/payment-instructions-and-emails.md).
  LEDGER_PAYMENT_VENDORS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const parsed = parsePaymentVendors(value);
      if (parsed.ok) return parsed.vendors;
      ctx.addIssue({ code: 'custom', message: `expected NAME=URL[,NAME=URL...]: ${parsed.problem}` });
      return z.NEVER;
    }),
  LEDGER_PAYMENT_VENDOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(DEFAULT_PAYMENT_VENDOR_TIMEOUT_MS),
  LEDGER_SMTP_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^smtps?$/ }).optional()),
  LEDGER_MAIL_FROM: z.string().min(3).default(DEFAULT_MAIL_FROM),
  LEDGER_SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(DEFAULT_SMTP_TIMEOUT_MS),
  // Webhooks (docs/webhooks.md): `true` lets endpoints use private, loopback and link-local addresses and plain http (tests, on-premises).
  LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: z
    .enum(['true', 'false'], { message: 'expected true or false' })
    .default('false')
    .transform((value) => value === 'true'),
  // How many days webhook delivery attempts are kept (GET webhook-endpoints/<id>/deliveries/).
  LEDGER_WEBHOOK_ATTEMPT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(DEFAULT_WEBHOOK_ATTEMPT_RETENTION_DAYS),
  // Notes' and statements' documents (docs/account-records.md): a local directory.
  LEDGER_DOCUMENT_STORE: z.string().min(1).default('./data/documents'),
  // Events out (docs/events.md): set, every external event is published to a JetStream stream.
  LEDGER_NATS_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^(nats|tls)$/ }).optional()),
  LEDGER_NATS_STREAM: z.string().regex(/^[A-Za-z0-9_-]+$/, 'a stream name: letters, digits, _ and -').default('IMPORT_LEDGER'),
  LEDGER_NATS_SUBJECT_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'subject tokens (letters, digits, _ and -) joined by dots')
    .default('import_ledger'),
  // Webhook deliveries (docs/webhooks.md): the waits before each attempt, and how long an endpoint may fail before it is disabled.
  LEDGER_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .transform((value, ctx) => {
      const schedule = parseRetrySchedule(value);
      if (schedule) return schedule;
      ctx.addIssue({ code: 'custom', message: 'expected waits such as 0,5s,5m,30m,2h (a number of ms, or with s, m, h, d)' });
      return z.NEVER;
    }),
  LEDGER_WEBHOOK_DISABLE_AFTER: z
    .string()
    .default('3d')
    .transform((value, ctx) => {
      const wait = parseDuration(value);
      if (wait !== null && wait > 0) return wait;
      ctx.addIssue({ code: 'custom', message: 'expected a duration such as 3d or 72h' });
      return z.NEVER;
    }),
  LEDGER_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  // Deliveries in flight per endpoint: different accounts go in parallel, one account's in order.
  LEDGER_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(32),
  // How long an instance holds a relay (NATS, a webhook endpoint) without renewing it: how soon another takes over a dead one's.
  LEDGER_RELAY_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(15_000),
});
export type LedgerConfig = z.infer<typeof envSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): LedgerConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  return parsed.data;
}
