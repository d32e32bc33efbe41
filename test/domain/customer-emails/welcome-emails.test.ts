import { describe, expect, it } from 'vitest';
import { welcomeEmailsQueued, welcomeEmailId } from '../../../src/domain/customer-email/welcome-emails.js';
import { examplePayloadOf } from './support.js';

const account = { importSupplier: 'LEGACY_ENERGIE', externalAccountNumber: 'LEG-0000001', platformAccountNumber: 'A-1234ABCD', now: '2026-11-21T10:00:00.000Z' };

describe('welcome emails queued at process time (spec 1.3)', () => {
  it('none when the supplier does not send emails', () => {
    expect(welcomeEmailsQueued(account, examplePayloadOf(), false)).toEqual([]);
  });

  it('one per customer with an email address, rendered once, ids stable per customer index', () => {
    const payload = examplePayloadOf((customers) => [
      customers[0],
      { ...customers[0], given_name: 'Paul', email: undefined },
      { ...customers[0], title: '', given_name: 'Léa', email: 'lea.dubois@example.fr' },
    ]);
    const events = welcomeEmailsQueued(account, payload, true);
    expect(events.map((event) => [event.data.emailId, event.data.customerIndex, event.data.to])).toEqual([
      ['A-1234ABCD-welcome-0', 0, 'claire.dubois@example.fr'],
      ['A-1234ABCD-welcome-2', 2, 'lea.dubois@example.fr'],
    ]);
    expect(welcomeEmailId('A-1234ABCD', 2)).toBe('A-1234ABCD-welcome-2');
    const [first, third] = events;
    expect(first?.data).toMatchObject({
      importSupplier: 'LEGACY_ENERGIE',
      externalAccountNumber: 'LEG-0000001',
      platformAccountNumber: 'A-1234ABCD',
      subject: 'Your energy account A-1234ABCD is ready',
      queuedAt: account.now,
    });
    expect(first?.data.text).toMatch(/^Hello Mme Claire Dubois,\n/);
    expect(first?.data.text).toContain('LEG-0000001');
    expect(third?.data.text).toMatch(/^Hello Léa Dubois,\n/);
  });
});
