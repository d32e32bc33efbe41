import { Command } from 'commander';
import { customerEmailStatuses, type CustomerEmailStatusName } from '../../projections/customer-emails.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { mailerFromConfig, type MailerProgress } from '../mailer/mailer.js';
import { info, JSON_OPTION_HELP, oneOf, operatorActor, out, printJson, table, withLedger } from './context.js';

function describe(progress: MailerProgress): string {
  const what = `${progress.emailId} to ${progress.to} (attempt ${progress.attempt})`;
  switch (progress.kind) {
    case 'sent':
      return `sent     ${what}`;
    case 'retrying':
      return `retrying ${what} at ${progress.retryAt}: ${progress.reason}`;
    case 'failed':
      return `failed   ${what} [${progress.outcome}]: ${progress.reason}`;
  }
}

export function emailCommand(): Command {
  const emails = new Command('emails').description('the customer-email outbox (welcome emails queued when accounts are processed)');
  emails
    .command('send')
    .description(
      'send every queued email that is due now, then exit (emails waiting for a retry stay queued); progress on stderr. ' +
        'Uses LEDGER_SMTP_URL, LEDGER_MAIL_FROM and LEDGER_SMTP_TIMEOUT_MS.',
    )
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(['debug', 'trace'].includes(config.LOG_LEVEL) ? config.LOG_LEVEL : 'error', false);
      if (!config.LEDGER_SMTP_URL) info('warning: LEDGER_SMTP_URL is not set: nothing is sent, the emails stay queued');
      const counts = { sent: 0, retrying: 0, failed: 0 };
      await withLedger(async (ledger) => {
        const mailer = mailerFromConfig(ledger, config, logger, operatorActor(), (progress) => {
          counts[progress.kind]++;
          info(describe(progress));
        });
        await mailer.sendDue();
        const left = await ledger.read.customerEmailQueueState();
        const next = left.nextDueAt ? ` (next due at ${left.nextDueAt})` : '';
        info(`done: ${counts.sent} sent, ${counts.retrying} to retry, ${counts.failed} failed; ${left.queued} queued${next}`);
      });
    });
  emails
    .command('list')
    .description('list the customer emails, oldest first')
    .option('--status <status>', `only one status: ${customerEmailStatuses.join(', ')}`, oneOf(customerEmailStatuses, (value) => value.toUpperCase()))
    .option('--supplier <CODE>', 'only the emails of one import supplier')
    .option('--json', JSON_OPTION_HELP, false)
    .action(async (options: { status?: CustomerEmailStatusName; supplier?: string; json: boolean }) => {
      await withLedger(async (ledger) => {
        const rows = await ledger.read.listCustomerEmails({
          ...(options.status ? { status: options.status } : {}),
          ...(options.supplier ? { importSupplier: options.supplier } : {}),
        });
        if (options.json) {
          printJson(
            rows.map((row) => ({
              email_id: row.emailId,
              import_supplier: row.importSupplier,
              external_account_number: row.externalAccountNumber,
              platform_account_number: row.platformAccountNumber,
              recipient: row.recipient,
              subject: row.subject,
              status: row.status,
              failure_outcome: row.failureOutcome,
              attempt: row.attempt,
              due_at: row.dueAt,
              last_error: row.lastError,
              message_id: row.messageId,
              queued_at: row.queuedAt,
              sent_at: row.sentAt,
              updated_at: row.updatedAt,
            })),
          );
          return;
        }
        out(
          table(
            rows.map((row) => ({
              EMAIL: row.emailId,
              ACCOUNT: `${row.importSupplier}/${row.externalAccountNumber}`,
              TO: row.recipient,
              STATUS: row.failureOutcome ? `${row.status} (${row.failureOutcome})` : row.status,
              ATTEMPTS: String(row.attempt),
              UPDATED: row.updatedAt,
            })),
          ) || 'no customer emails',
        );
      }, options.supplier || undefined);
    });
  return emails;
}
