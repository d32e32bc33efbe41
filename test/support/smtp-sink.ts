import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message the sink accepted. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  /** The raw message (headers and body) as the client sent it. */
  readonly raw: string;
}

/** How the sink answers RCPT TO for one address (default: accept). */
export type RecipientRule = { readonly kind: 'accept' } | { readonly kind: 'reply'; readonly code: number; readonly message: string };

export interface SmtpSink {
  /** `smtp://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  readonly received: ReceivedMail[];
  /** How many RCPT TO commands named `address` (accepted or not). */
  attemptsFor(address: string): number;
  rule(address: string, rule: RecipientRule): void;
  close(): Promise<void>;
}

/** A local SMTP server (the `smtp-server` package) on 127.0.0.1: no TLS, no auth, messages kept in memory. */
export async function startSmtpSink(port = 0): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const attempts = new Map<string, number>();
  const rules = new Map<string, RecipientRule>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      attempts.set(address.address, (attempts.get(address.address) ?? 0) + 1);
      const rule = rules.get(address.address) ?? { kind: 'accept' };
      if (rule.kind === 'accept') return callback();
      const error = Object.assign(new Error(rule.message), { responseCode: rule.code });
      return callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const envelope = session.envelope;
        received.push({
          from: envelope.mailFrom ? envelope.mailFrom.address : '',
          to: envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  const listening = server.listen(port, '127.0.0.1');
  await once(listening, 'listening');
  const actual = (listening.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${actual}`,
    port: actual,
    received,
    attemptsFor: (address) => attempts.get(address) ?? 0,
    rule: (address, rule) => void rules.set(address, rule),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A header of a raw message (unfolded), or undefined. */
export function header(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}
