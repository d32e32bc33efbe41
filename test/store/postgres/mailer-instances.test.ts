import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineProjections } from '../../../projections/index.js';
import { createSmtpTransport } from '../../../src/adapters/smtp-mail.js';
import { createImportSupplier, createOperationsTeam } from '../../../src/application/operator.js';
import { CustomerMailer } from '../../../src/mailer/mailer.js';
import { CLAIRE, importWelcomeAccount, LEA, mailerActor } from '../../mailer/mailer-support.js';
import { operator, TEAM } from '../../support/ledger.js';
import { skipWithoutPostgres } from '../../support/postgres.js';
import { createExampleProducts } from '../../support/products.js';
import { startSmtpSink, type SmtpSink } from '../../support/smtp-sink.js';
import { openInstances, sleep, type Instances } from './instances.js';

const SENDS = 'SENDS_EMAILS';
const ACCOUNTS = 12;

/**
 * The customer mailer running on two instances of the service, on one PostgreSQL database, against one SMTP
 * server: each welcome email is claimed by one instance (a command decided under the writers' lock) and sent
 * once, whichever instance queued it and whichever sends it.
 */
describe('welcome emails on two instances', () => {
  if (skipWithoutPostgres()) return;
  let instances: Instances;
  let sink: SmtpSink;
  beforeAll(async () => {
    instances = await openInstances();
    sink = await startSmtpSink();
    const { a } = instances;
    await createImportSupplier(a, { code: SENDS, status: 'Ongoing', sendEmails: true, documentRoot: null }, operator);
    await createOperationsTeam(a, TEAM, operator);
    await createExampleProducts(a);
  });
  afterAll(async () => {
    await sink.close();
    await instances.close();
  });

  const mailer = (ledger: Instances['a']) =>
    new CustomerMailer({
      ctx: ledger,
      transport: createSmtpTransport({ url: sink.url, from: 'Energie <no-reply@example.fr>', timeoutMs: 5_000 }),
      logger: pino({ level: 'silent' }),
      actor: mailerActor,
      options: { idlePollMs: 10 },
    });

  it('two running mailers, accounts imported through both instances meanwhile: every email sent exactly once', async () => {
    const { a, b } = instances;
    const mailers = [mailer(a), mailer(b), mailer(a), mailer(b)];
    for (const m of mailers) m.start();
    // Accounts processed through both instances while the mailers poll: every email is queued on one
    // instance and may be taken by either.
    const imported = await Promise.all(
      Array.from({ length: ACCOUNTS }, (_, i) => importWelcomeAccount(i % 2 === 0 ? a : b, SENDS, { ext: `LEG-${String(i + 1).padStart(7, '0')}` })),
    );
    const expected = imported.flatMap(({ platformAccountNumber }) => [`${platformAccountNumber}-welcome-0`, `${platformAccountNumber}-welcome-2`]);
    for (let waited = 0; sink.received.length < expected.length && waited < 20_000; waited += 50) await sleep(50);
    // A little longer: a second send, if there were one, would show now.
    await sleep(300);
    await Promise.all(mailers.map((m) => m.stop()));

    const messageIds = sink.received.map((mail) => /^Message-ID: <(.+)@import-ledger>/im.exec(mail.raw)?.[1]);
    expect(messageIds.sort()).toEqual([...expected].sort());
    expect(sink.attemptsFor(CLAIRE)).toBe(ACCOUNTS);
    expect(sink.attemptsFor(LEA)).toBe(ACCOUNTS);
    const emails = await b.read.listCustomerEmails();
    expect(emails).toHaveLength(expected.length);
    expect(emails.every((email) => email.status === 'SENT' && email.attempt === 1)).toBe(true);
    // One claim and one sent event per email, whichever instance recorded them.
    const claims = await instances.sql<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE type = 'CustomerEmailSendClaimed'`);
    expect(claims[0]?.n).toBe(expected.length);
    expect((await a.projections.verify(inlineProjections)).differences).toEqual([]);

    // Another pass on either instance sends nothing.
    await Promise.all([mailer(a).sendDue(), mailer(b).sendDue()]);
    expect(sink.received).toHaveLength(expected.length);
  });
});
