import type { Logger } from 'pino';
import { createSmtpTransport } from '../adapters/smtp-mail.js';
import type { Actor, LedgerContext } from '../application/context.js';
import type { LedgerConfig } from '../config.js';
import { CustomerMailer, mailerLeaseFor, type MailerProgress } from './mailer.js';

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
  return new CustomerMailer({
    ctx,
    transport,
    logger: logger.child({ component: 'mailer' }),
    actor,
    ...(onProgress ? { onProgress } : {}),
    options: { leaseMs: mailerLeaseFor(config.LEDGER_SMTP_TIMEOUT_MS) },
  });
}
