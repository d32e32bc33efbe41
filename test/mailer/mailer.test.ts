import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountImportProcessStreamId } from '../../events/account-import-process.js';
import { createSmtpTransport } from '../../src/adapters/smtp-mail.js';
import { claimCustomerEmail } from '../../src/application/customer-emails.js';
import { createImportSupplier, createOperationsTeam } from '../../src/application/operator.js';
import { CustomerMailer, type MailerOptions, type MailerProgress } from '../../src/mailer/mailer.js';
import { createExampleProducts } from '../support/products.js';
import { createTestLedger, operator, TEAM, type TestLedger } from '../support/ledger.js';
import { header, startSmtpSink, type SmtpSink } from '../support/smtp-sink.js';
import { CLAIRE, EXT, importWelcomeAccount, LEA, mailerActor } from './mailer-support.js';

const SENDS = 'SENDS_EMAILS';
const SILENT = 'NO_EMAILS';
const retry = { maxAttempts: 3, baseDelayMs: 60_000, maxDelayMs: 600_000 };

const importAccount = (t: TestLedger, supplier = SENDS, options: { dryRun?: boolean; ext?: string } = {}) => importWelcomeAccount(t.ledger, supplier, options);

interface LogLine {
  msg: string;
  emailId?: string;
  [key: string]: unknown;
}

function capturingLogger() {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

describe('customer-email outbox and mailer (spec 1.3)', () => {
  let t: TestLedger;
  let sink: SmtpSink;
  const progress: MailerProgress[] = [];

  const mailer = (options: Partial<MailerOptions> = {}, url = sink.url) =>
    new CustomerMailer({
      ctx: t.ledger,
      transport: createSmtpTransport({ url, from: 'Energie <no-reply@example.fr>', timeoutMs: 2_000 }),
      logger: pino({ level: 'silent' }),
      actor: mailerActor,
      onProgress: (p) => progress.push(p),
      options: { retry, idlePollMs: 20, ...options },
    });
  const emails = () => t.ledger.read.listCustomerEmails();
  const streamTypes = async (supplier = SENDS) =>
    (await t.ledger.store.readStream(accountImportProcessStreamId(supplier, EXT))).map((stored) => stored.event.type);

  beforeEach(async () => {
    t = await createTestLedger();
    sink = await startSmtpSink();
    progress.length = 0;
    await createImportSupplier(t.ledger, { code: SENDS, status: 'Ongoing', sendEmails: true, documentRoot: null }, operator);
    await createImportSupplier(t.ledger, { code: SILENT, status: 'Ongoing', sendEmails: false, documentRoot: null }, operator);
    await createOperationsTeam(t.ledger, TEAM, operator);
    await createExampleProducts(t.ledger);
  });
  afterEach(async () => {
    await sink.close();
    await t.close();
  });

  it('processing queues one welcome email per customer with an address, in the process transaction; nothing is sent before the mailer runs', async () => {
    const { platformAccountNumber } = await importAccount(t);
    const stored = await t.ledger.store.readStream(accountImportProcessStreamId(SENDS, EXT));
    const processed = stored.find((s) => s.event.type === 'AccountProcessed');
    const queued = stored.filter((s) => s.event.type === 'CustomerWelcomeEmailQueued');
    expect(queued).toHaveLength(2);
    // Same command, same transaction: the same causation id and recording time as AccountProcessed.
    for (const q of queued) {
      expect(q.metadata.causationId).toBe(processed?.metadata.causationId);
      expect(q.recordedAt).toBe(processed?.recordedAt);
      expect(q.streamPosition).toBeGreaterThan(processed?.streamPosition ?? Infinity);
    }
    expect((await emails()).map((e) => [e.emailId, e.recipient, e.status, e.attempt])).toEqual([
      [`${platformAccountNumber}-welcome-0`, CLAIRE, 'QUEUED', 0],
      [`${platformAccountNumber}-welcome-2`, LEA, 'QUEUED', 0],
    ]);
    expect(sink.received).toEqual([]);
  });

  it('the mailer sends each queued email once, over SMTP, and records it sent', async () => {
    const { platformAccountNumber } = await importAccount(t);
    await mailer().sendDue();
    expect(sink.received.map((m) => m.to)).toEqual([[CLAIRE], [LEA]]);
    const [first] = sink.received;
    expect(header(first!.raw, 'Subject')).toBe(`Your energy account ${platformAccountNumber} is ready`);
    expect(header(first!.raw, 'Message-ID')).toBe(`<${platformAccountNumber}-welcome-0@import-ledger>`);
    expect(header(first!.raw, 'From')).toMatch(/no-reply@example\.fr/);
    expect(first!.raw).toContain(platformAccountNumber);
    expect((await emails()).map((e) => [e.status, e.attempt, e.messageId])).toEqual([
      ['SENT', 1, `${platformAccountNumber}-welcome-0@import-ledger`],
      ['SENT', 1, `${platformAccountNumber}-welcome-2@import-ledger`],
    ]);
    expect(progress.map((p) => p.kind)).toEqual(['sent', 'sent']);

    t.clock.advanceSeconds(3_600);
    await mailer().sendDue();
    expect(sink.received).toHaveLength(2);
    const types = await streamTypes();
    expect(types.filter((type) => type === 'CustomerEmailSendClaimed')).toHaveLength(2);
    expect(types.filter((type) => type === 'CustomerEmailSent')).toHaveLength(2);
  });

  it('two mailers at once never send an email twice', async () => {
    await importAccount(t);
    await importAccount(t, SENDS, { ext: 'LEG-0000002' });
    await Promise.all([mailer().sendDue(), mailer().sendDue(), mailer().sendDue()]);
    expect(sink.received.map((m) => m.to[0]).sort()).toEqual([CLAIRE, CLAIRE, LEA, LEA]);
    expect((await emails()).every((e) => e.status === 'SENT' && e.attempt === 1)).toBe(true);
  });

  it('a 4xx refusal is retried with backoff: not before its retry time, then sent', async () => {
    await importAccount(t);
    sink.rule(LEA, { kind: 'reply', code: 451, message: 'mailbox busy, try later' });
    await mailer().sendDue();
    const lea = (await emails()).find((e) => e.recipient === LEA);
    expect(lea).toMatchObject({ status: 'QUEUED', attempt: 1, dueAt: new Date(t.clock.now.getTime() + 60_000).toISOString() });
    expect(lea?.lastError).toMatch(/451/);
    expect(progress.find((p) => p.kind === 'retrying')).toMatchObject({ emailId: lea?.emailId, attempt: 1 });

    t.clock.advanceSeconds(30);
    await mailer().sendDue();
    expect(sink.attemptsFor(LEA)).toBe(1);

    sink.rule(LEA, { kind: 'accept' });
    t.clock.advanceSeconds(30);
    await mailer().sendDue();
    expect(sink.attemptsFor(LEA)).toBe(2);
    expect((await emails()).find((e) => e.recipient === LEA)).toMatchObject({ status: 'SENT', attempt: 2 });
    expect(sink.received.filter((m) => m.to[0] === LEA)).toHaveLength(1);
  });

  it('a transient refusal on every attempt ends as failed (gave_up) after maxAttempts', async () => {
    await importAccount(t);
    sink.rule(LEA, { kind: 'reply', code: 421, message: 'too busy' });
    for (let i = 0; i < 5; i++) {
      await mailer().sendDue();
      t.clock.advanceSeconds(600);
    }
    expect(sink.attemptsFor(LEA)).toBe(3);
    expect((await emails()).find((e) => e.recipient === LEA)).toMatchObject({ status: 'FAILED', failureOutcome: 'gave_up', attempt: 3 });
  });

  it('a 5xx refusal fails the email for good on the first attempt', async () => {
    await importAccount(t);
    sink.rule(CLAIRE, { kind: 'reply', code: 550, message: 'no such user' });
    await mailer().sendDue();
    t.clock.advanceSeconds(3_600);
    await mailer().sendDue();
    expect(sink.attemptsFor(CLAIRE)).toBe(1);
    const claire = (await emails()).find((e) => e.recipient === CLAIRE);
    expect(claire).toMatchObject({ status: 'FAILED', failureOutcome: 'rejected', attempt: 1 });
    expect(claire?.lastError).toMatch(/550/);
  });

  it('an SMTP server that cannot be reached leaves the emails queued for a retry; they go once it is back', async () => {
    await importAccount(t);
    const port = sink.port;
    await sink.close();
    await mailer({}, `smtp://127.0.0.1:${port}`).sendDue();
    expect((await emails()).map((e) => [e.status, e.attempt])).toEqual([
      ['QUEUED', 1],
      ['QUEUED', 1],
    ]);
    expect((await emails())[0]?.lastError).toMatch(/ECONNREFUSED/);
    sink = await startSmtpSink(port);
    t.clock.advanceSeconds(60);
    await mailer({}, `smtp://127.0.0.1:${port}`).sendDue();
    expect(sink.received).toHaveLength(2);
    expect((await emails()).map((e) => [e.status, e.attempt])).toEqual([
      ['SENT', 2],
      ['SENT', 2],
    ]);
  });

  it('a claim whose mailer died mid-send is failed (outcome unknown) when its lease runs out, never sent again', async () => {
    await importAccount(t);
    const [claire] = await emails();
    // A mailer claimed it and died before recording anything.
    await claimCustomerEmail(
      t.ledger,
      { importSupplier: SENDS, externalAccountNumber: EXT, emailId: claire!.emailId },
      60_000,
      mailerActor,
    );
    await mailer().sendDue();
    expect(sink.received.map((m) => m.to[0])).toEqual([LEA]);
    t.clock.advanceSeconds(61);
    await mailer().sendDue();
    expect(sink.received.map((m) => m.to[0])).toEqual([LEA]);
    expect((await emails()).find((e) => e.recipient === CLAIRE)).toMatchObject({ status: 'FAILED', failureOutcome: 'unknown' });
    expect(progress.find((p) => p.kind === 'failed')).toMatchObject({ outcome: 'unknown', to: CLAIRE });
  });

  it('without SMTP the emails stay queued and each is logged once', async () => {
    const { platformAccountNumber } = await importAccount(t);
    const { logger, lines } = capturingLogger();
    const unconfigured = new CustomerMailer({ ctx: t.ledger, transport: null, logger, actor: mailerActor, options: { idlePollMs: 10 } });
    await unconfigured.sendDue();
    await unconfigured.sendDue();
    const logged = lines.filter((line) => line.msg.startsWith('customer email queued, not sent'));
    expect(logged.map((line) => line.emailId)).toEqual([`${platformAccountNumber}-welcome-0`, `${platformAccountNumber}-welcome-2`]);
    expect((await emails()).every((e) => e.status === 'QUEUED' && e.attempt === 0)).toBe(true);

    unconfigured.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await unconfigured.stop();
    expect(lines.some((line) => line.msg.startsWith('LEDGER_SMTP_URL is not set'))).toBe(true);
  });

  it('a dry run queues nothing; a supplier that does not send emails queues nothing', async () => {
    await importAccount(t, SENDS, { dryRun: true });
    await importAccount(t, SILENT);
    expect(await emails()).toEqual([]);
    expect(await streamTypes(SILENT)).not.toContain('CustomerWelcomeEmailQueued');
    await mailer().sendDue();
    expect(sink.received).toEqual([]);
  });

  it('started beside the server, the mailer delivers what gets queued after it started, and stops cleanly', async () => {
    const background = mailer();
    background.start();
    await importAccount(t);
    for (let i = 0; i < 200 && sink.received.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await background.stop();
    expect(sink.received).toHaveLength(2);
    expect((await emails()).every((e) => e.status === 'SENT')).toBe(true);
  });
});
