import { createTransport } from 'nodemailer';
import type { MailDelivery } from '../domain/customer-email/decider.js';

export interface OutgoingEmail {
  /** The Message-ID header, without angle brackets: derived from the email id, so receivers can spot a copy. */
  readonly messageId: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** Hands messages to a mail server and says what came of it. Never throws. */
export interface MailTransport {
  send(email: OutgoingEmail): Promise<MailDelivery>;
  close(): void;
}

export interface SmtpOptions {
  /** `smtp://[user:pass@]host:port` or `smtps://...` (nodemailer's connection URL). */
  readonly url: string;
  /** The From header, e.g. `Energy <no-reply@example.fr>`. */
  readonly from: string;
  /** Connection, DNS and greeting timeout of one delivery; socket inactivity gets twice as long. */
  readonly timeoutMs: number;
}

/** Network errors that happen before a session exists: the message cannot have been handed over. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EADDRNOTAVAIL']);
/** Nodemailer codes of failures before MAIL FROM (or of a message it refused to build): nothing was handed over. */
const BEFORE_ENVELOPE = new Set(['EDNS', 'EAUTH', 'ENOAUTH', 'ETLS', 'EREQUIRETLS', 'EPROXY', 'ECONFIG']);
const INVALID_MESSAGE = new Set(['EENVELOPE', 'EMESSAGE']);

interface NodemailerError {
  readonly message?: unknown;
  readonly code?: unknown;
  readonly originalCode?: unknown;
  readonly command?: unknown;
  readonly responseCode?: unknown;
  readonly timeoutType?: unknown;
}

/**
 * What a nodemailer error says about the delivery. Only a failure that certainly left the message
 * undelivered is `refused` (retriable): a server reply (4xx transient, 5xx permanent), a server not reached
 * or not greeting in time, a failure before the envelope. Anything else (the session broke or went silent)
 * may have come after the server took the message: `unknown`, never retried.
 */
export function classifySmtpError(error: unknown): MailDelivery {
  const e = (typeof error === 'object' && error !== null ? error : {}) as NodemailerError;
  const reason = typeof e.message === 'string' && e.message !== '' ? e.message : String(error);
  if (typeof e.responseCode === 'number') return { kind: 'refused', permanent: e.responseCode >= 500, reason };
  if (typeof e.code === 'string' && INVALID_MESSAGE.has(e.code)) return { kind: 'refused', permanent: true, reason };
  if (typeof e.code === 'string' && BEFORE_ENVELOPE.has(e.code)) return { kind: 'refused', permanent: false, reason };
  if (typeof e.originalCode === 'string' && UNREACHABLE.has(e.originalCode)) return { kind: 'refused', permanent: false, reason };
  if (e.code === 'ETIMEDOUT' && (e.timeoutType === 'CONNECTION_TIMEOUT' || e.timeoutType === 'GREETING_TIMEOUT' || e.timeoutType === 'DNS_TIMEOUT')) {
    return { kind: 'refused', permanent: false, reason };
  }
  return { kind: 'unknown', reason };
}

/** An SMTP transport through nodemailer: one connection per message (no pool), bounded by `timeoutMs`. */
export function createSmtpTransport(options: SmtpOptions): MailTransport {
  const transport = createTransport(
    {
      url: options.url,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      // Longer than the greeting timeout, so a server that never greets (safe to retry) is told from a silent session.
      socketTimeout: 2 * options.timeoutMs,
      dnsTimeout: options.timeoutMs,
    },
    { from: options.from },
  );
  return {
    async send(email) {
      try {
        const info = await transport.sendMail({ messageId: `<${email.messageId}>`, to: email.to, subject: email.subject, text: email.text });
        if (info.rejected.length > 0 || info.accepted.length === 0) {
          return { kind: 'refused', permanent: true, reason: `The SMTP server refused ${email.to}: ${info.response}` };
        }
        return { kind: 'sent', messageId: email.messageId, response: info.response };
      } catch (error) {
        return classifySmtpError(error);
      }
    },
    close: () => transport.close(),
  };
}
