import type { VerifyClient } from './api-client.js';
import type { MigrationInput } from './input.js';
import type { Progress } from './progress.js';
import type { Sender } from './retry.js';
import type { VerifyReport } from './verify-report.js';

export interface CatalogueContext {
  readonly client: VerifyClient;
  readonly sender: Sender;
  readonly supplier: string;
  readonly baseUrl: string;
  readonly input: MigrationInput;
  readonly report: VerifyReport;
  readonly progress: Progress;
  readonly log: (line: string) => void;
}

/** The folder's products and businesses compared with the service's. */
export async function verifyCatalogue(ctx: CatalogueContext): Promise<void> {
  if (ctx.input.products()) ctx.log('products: not compared yet');
  if (ctx.input.businesses()) ctx.log('businesses: not compared yet');
}
