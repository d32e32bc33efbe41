import { accountCreationDecider } from './account-creation/decider.js';
import { accountImportProcessDecider } from './account-import-process/decider.js';
import { apiKeyDecider } from './api-key/api-key-decider.js';
import { businessDecider } from './business/decider.js';
import { businessPaymentInstructionDecider } from './business/payment-instruction.js';
import { customerEmailDecider } from './customer-email/decider.js';
import type { AnyDecider } from './decider.js';
import { recordDecider, refusedAttemptDecider } from './import-attempt/decider.js';
import { importSupplierDecider } from './import-supplier/import-supplier-decider.js';
import { ledgerDecider } from './ledger/decider.js';
import { notesDecider } from './notes/decider.js';
import { operationsTeamDecider } from './operations-team/operations-team-decider.js';
import { paymentInstructionDecider } from './payment-instruction/decider.js';
import { productDecider } from './product/decider.js';
import { serviceConfigDecider } from './service-config/service-config-decider.js';
import { statementsDecider } from './statements/decider.js';
import { populateBatchDecider } from './supply-point/populate-batch-decider.js';
import { populateRequestDecider } from './supply-point/populate-request-decider.js';
import { webhookEndpointDecider } from './webhook-endpoint/decider.js';

/**
 * Every decider by a name: a command crosses to the SQLite writer thread with its decider's name, and the
 * thread finds the decider here (a function does not cross threads).
 */
export const decidersByName: Readonly<Record<string, AnyDecider>> = {
  accountCreation: accountCreationDecider,
  accountImportProcess: accountImportProcessDecider,
  apiKey: apiKeyDecider,
  business: businessDecider,
  businessPaymentInstruction: businessPaymentInstructionDecider,
  customerEmail: customerEmailDecider,
  refusedAttempt: refusedAttemptDecider,
  record: recordDecider,
  importSupplier: importSupplierDecider,
  ledger: ledgerDecider,
  notes: notesDecider,
  operationsTeam: operationsTeamDecider,
  paymentInstruction: paymentInstructionDecider,
  product: productDecider,
  serviceConfig: serviceConfigDecider,
  statements: statementsDecider,
  populateBatch: populateBatchDecider,
  populateRequest: populateRequestDecider,
  webhookEndpoint: webhookEndpointDecider,
};

const names = new Map<AnyDecider, string>(Object.entries(decidersByName).map(([name, decider]) => [decider, name]));

/** The decider's name in `decidersByName`; throws for one not registered there (a new decider must be added). */
export function deciderName(decider: AnyDecider): string {
  const name = names.get(decider);
  if (name === undefined) throw new Error('a decider missing from src/domain/deciders.ts cannot be handled by the writer thread');
  return name;
}
