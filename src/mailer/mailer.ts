import type { CustomerEmailFailureOutcome } from '../../events/customer-email.js';
import type { LedgerEvent } from '../../events/registry.js';
import type { CustomerEmailRow } from '../../projections/customer-emails.js';
import type { Logger } from 'pino';
import { createSmtpTransport, type MailTransport } from '../adapters/smtp-mail.js';
import type { Actor, LedgerContext } from '../application/context.js';
import { claimCustomerEmail, recordCustomerEmailDelivery } from '../application/customer-emails.js';
import type { CustomerEmailRef } from '../domain/customer-email/decider.js';
import { DEFAULT_EMAIL_RETRY_POLICY } from '../domain/customer-email/retry-policy.js';
import type { RetryPolicy } from '../domain/retry-policy.js';
import type { LedgerConfig } from '../config.js';
import { DomainError } from '../domain/errors.js';
import { claimUnlessTaken, PassWorker, runEachDueOnce, type WorkerDeps } from '../worker/background-worker.js';

export interface MailerOptions {
  readonly retry: RetryPolicy;
  /** How long a claim holds: longer than one SMTP delivery can take (its timeouts), with a margin. */
  readonly leaseMs: number;
  readonly idlePollMs: number;
  readonly batchSize: number;
}

/** A lease long enough for a delivery whose every phase runs to `timeoutMs`, and the write after it. */
export function mailerLeaseFor(timeoutMs: number): number {
  return 4 * timeoutMs + 5_000;
}

export const DEFAULT_MAILER_OPTIONS: MailerOptions = {
  retry: DEFAULT_EMAIL_RETRY_POLICY,
  leaseMs: mailerLeaseFor(30_000),
  idlePollMs: 1_000,
  batchSize: 20,
};

export type MailerProgress =
  | { readonly kind: 'sent'; readonly emailId: string; readonly to: string; readonly attempt: number }
  | { readonly kind: 'retrying'; readonly emailId: string; readonly to: string; readonly attempt: number; readonly retryAt: string; readonly reason: string }
  | {
      readonly kind: 'failed';
      readonly emailId: string;
      readonly to: string;
      readonly attempt: number;
      readonly outcome: CustomerEmailFailureOutcome;
      readonly reason: string;
    };

export interface MailerDeps extends WorkerDeps<MailerOptions> {
  /** Null when no SMTP server is configured: emails stay queued and are logged. */
  readonly transport: MailTransport | null;
  readonly onProgress?: (progress: MailerProgress) => void;
}

/** The mailer the server and `import-ledger emails send` use: SMTP server, sender and timeouts from the environment. */
export function mailerFromConfig(
  ctx: LedgerContext,
  config: Pick<LedgerConfig, 'LEDGER_SMTP_URL' | 'LEDGER_MAIL_FROM' | 'LEDGER_SMTP_TIMEOUT_MS'>,
  logger: Logger,
  actor: Actor,
  onProgress?: (progress: MailerProgress) => void,
): CustomerMailer {
  const transport = config.LEDGER_SMTP_URL
    ? createSmtpTransport({ url: config.LEDGER_SMTP_URL, from: config.LEDGER_MAIL_FROM, timeoutMs: config.LEDGER_SMTP_TIMEOUT_MS })
    : null;
  const options = { leaseMs: mailerLeaseFor(config.LEDGER_SMTP_TIMEOUT_MS) };
  return new CustomerMailer({ ctx, transport, logger: logger.child({ component: 'mailer' }), actor, onProgress, options });
}

/**
 * Delivers the customer-email outbox after commit: for each due email it records a claim, calls the SMTP
 * server, and records the outcome (sent, failed for now and retried with backoff, or failed for good).
 * At most once, by choice (docs/payment-instructions-and-emails.md): an email is sent only under a claim
 * this mailer recorded, and a claim that ran out without an outcome (the mailer died during the call)
 * ends the email as failed with outcome `unknown` instead of sending it again.
 */
export class CustomerMailer extends PassWorker {
  private readonly options: MailerOptions;
  /** Without SMTP: the queue position up to which queued emails have been logged. */
  private loggedUpTo = 0;

  constructor(private readonly deps: MailerDeps) {
    const options = { ...DEFAULT_MAILER_OPTIONS, ...deps.options };
    super('mailer', deps, options.idlePollMs);
    this.options = options;
  }

  override start(): void {
    if (!this.deps.transport && !this.isRunning) {
      this.deps.logger.warn('LEDGER_SMTP_URL is not set: customer emails stay queued (logged here) and are not sent');
    }
    super.start();
  }

  /** One pass over what is due now (`import-ledger emails send`); without SMTP it only logs the queued emails. */
  async sendDue(): Promise<{ readonly handled: number }> {
    return { handled: await this.pass(this.signal) };
  }

  protected async pass(signal: AbortSignal): Promise<number> {
    const { ctx, transport } = this.deps;
    if (!transport) return this.logQueued();
    const read = (limit: number) => ctx.read.dueCustomerEmails(ctx.clock().toISOString(), limit);
    const run = (row: CustomerEmailRow) => this.deliver(transport, row);
    return runEachDueOnce({ read, keyOf: (row) => row.emailId, run, batchSize: this.options.batchSize }, signal);
  }

  private async logQueued(): Promise<number> {
    const queued = await this.deps.ctx.read.listCustomerEmails({ status: 'QUEUED', afterQueuePosition: this.loggedUpTo, limit: 100 });
    for (const row of queued) {
      this.deps.logger.info(
        { emailId: row.emailId, to: row.recipient, importSupplier: row.importSupplier, externalAccountNumber: row.externalAccountNumber },
        'customer email queued, not sent: LEDGER_SMTP_URL is not set',
      );
      this.loggedUpTo = Math.max(this.loggedUpTo, row.queuePosition);
    }
    return 0;
  }

  /** Claims, sends and records one email; false when it was not ours to send. */
  private async deliver(transport: MailTransport, row: CustomerEmailRow): Promise<boolean> {
    const { ctx, actor, logger } = this.deps;
    const email: CustomerEmailRef = {
      importSupplier: row.importSupplier,
      externalAccountNumber: row.externalAccountNumber,
      emailId: row.emailId,
    };
    const log = logger.child({ emailId: row.emailId });
    const claim = await claimUnlessTaken(claimCustomerEmail(ctx, email, this.options.leaseMs, actor));
    if (claim === null) return false;
    if (claim.kind === 'failed') {
      log.warn({ reason: claim.reason }, 'mailer: a claim ran out during a delivery; the email is failed, not sent again');
      this.deps.onProgress?.({ kind: 'failed', emailId: row.emailId, to: row.recipient, attempt: row.attempt, outcome: 'unknown', reason: claim.reason });
      return true;
    }
    const delivery = await transport.send({
      messageId: `${row.emailId}@import-ledger`,
      to: row.recipient,
      subject: row.subject,
      text: row.body,
    });
    try {
      const event = await recordCustomerEmailDelivery(ctx, email, claim.attempt, delivery, this.options.retry, actor);
      this.report(row, event);
    } catch (error) {
      if (error instanceof DomainError) {
        // The lease ran out during the call and another mailer ended the email (outcome unknown) meanwhile.
        log.warn({ code: error.code, delivery: delivery.kind }, 'mailer: outcome not recorded, the claim was lost');
      } else {
        // The claim stays: when its lease runs out the email ends as failed (outcome unknown), never sent twice.
        log.error({ err: error, delivery: delivery.kind }, 'mailer: could not record the outcome of a delivery');
      }
    }
    return true;
  }

  private report(row: CustomerEmailRow, event: LedgerEvent | undefined): void {
    const base = { emailId: row.emailId, to: row.recipient };
    switch (event?.type) {
      case 'CustomerEmailSent':
        this.deps.logger.info({ ...base, attempt: event.data.attempt }, 'customer email sent');
        this.deps.onProgress?.({ kind: 'sent', ...base, attempt: event.data.attempt });
        return;
      case 'CustomerEmailSendFailed':
        this.deps.logger.warn({ ...base, attempt: event.data.attempt, retryAt: event.data.retryAt, reason: event.data.reason }, 'customer email not sent; will retry');
        this.deps.onProgress?.({ kind: 'retrying', ...base, attempt: event.data.attempt, retryAt: event.data.retryAt, reason: event.data.reason });
        return;
      case 'CustomerEmailFailed':
        this.deps.logger.error({ ...base, attempt: event.data.attempt, outcome: event.data.outcome, reason: event.data.reason }, 'customer email failed');
        this.deps.onProgress?.({ kind: 'failed', ...base, attempt: event.data.attempt, outcome: event.data.outcome, reason: event.data.reason });
        return;
      default:
        return;
    }
  }
}
