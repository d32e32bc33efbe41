import type { CustomerWelcomeEmailQueued } from '../../../events/customer-email.js';
import type { AccountPayload } from '../account-import-process/account-payload.js';
import type { Customer } from '../account-import-process/account-payload-parts.js';
import { accountOf, type AccountRef } from '../account-records/account-stream.js';

/** The account being processed. */
export interface ProcessedAccountRef extends AccountRef {
  readonly platformAccountNumber: string;
}

/** Stable and unique: one welcome email per customer index of one platform account. */
export function welcomeEmailId(platformAccountNumber: string, customerIndex: number): string {
  return `${platformAccountNumber}-welcome-${customerIndex}`;
}

/** The welcome message, rendered once at queue time and sent exactly as recorded. */
function renderWelcomeEmail(account: ProcessedAccountRef, customer: Customer): { subject: string; text: string } {
  const name = [customer.title, customer.given_name, customer.family_name].filter((part) => part && part.trim() !== '').join(' ');
  return {
    subject: `Your energy account ${account.platformAccountNumber} is ready`,
    text: [
      `Hello ${name},`,
      '',
      `Your energy supply account ${account.externalAccountNumber} has moved to our platform.`,
      `Your new account number is ${account.platformAccountNumber}: please quote it when you contact us.`,
      'Your supply, your tariff and your payment arrangements carry on as before; there is nothing you need to do.',
      '',
      'Welcome aboard.',
      '',
    ].join('\n'),
  };
}

/** Spec 1.3: when the supplier sends emails, processing queues one welcome email per customer with an address. */
export function welcomeEmailsQueued(account: ProcessedAccountRef, payload: AccountPayload, sendEmails: boolean): CustomerWelcomeEmailQueued[] {
  if (!sendEmails) return [];
  return payload.customers.flatMap((customer, customerIndex): CustomerWelcomeEmailQueued[] => {
    const to = customer.email?.trim();
    if (!to) return [];
    return [
      {
        type: 'CustomerWelcomeEmailQueued',
        version: 1,
        data: {
          ...accountOf(account),
          emailId: welcomeEmailId(account.platformAccountNumber, customerIndex),
          platformAccountNumber: account.platformAccountNumber,
          customerIndex,
          to,
          ...renderWelcomeEmail(account, customer),
          queuedAt: account.now,
        },
      },
    ];
  });
}
