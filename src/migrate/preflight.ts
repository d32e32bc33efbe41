import { z } from 'zod';
import type { ProductAnswer, TeamAnswer, VerifyClient } from './api-client.js';
import { answered, MigrationAborted, pool } from './folder-run.js';
import { isUnreadable, type MigrationInput } from './input.js';
import type { Sender } from './retry.js';

/**
 * What `migrate` checks before its first write, besides the key and its scope: that the team exists and,
 * when the folder has no products.json, that every product its accounts name exists. A run that went on
 * would stage the whole cohort and fail every account on process, so either stops the run (exit 2) with
 * what is missing.
 */
export interface PreflightContext {
  readonly client: Pick<VerifyClient, 'readOperationsTeam' | 'readProduct'>;
  readonly sender: Sender;
  readonly input: MigrationInput;
  readonly team: string;
  readonly concurrency: number;
  readonly stopped: () => boolean;
  readonly log: (line: string) => void;
}

/** Missing products named in the message, at most; the rest are counted. */
const NAMED = 10;

export async function checkBeforeWriting(ctx: PreflightContext): Promise<void> {
  await checkTeam(ctx);
  if (!ctx.input.products() && ctx.input.accountsSource()) await checkNamedProducts(ctx);
}

async function checkTeam({ client, sender, team }: PreflightContext): Promise<void> {
  const what = `reading operations team ${team}`;
  const answer = answered<TeamAnswer>(await sender.send((token) => client.readOperationsTeam(team, token)), what);
  if (answer.status === 404) {
    throw new MigrationAborted(`the service has no operations team ${JSON.stringify(team)} (--team)`, true, 'team names are exact; an operator creates one with: import-ledger team create NAME');
  }
  if (answer.status !== 200) throw new MigrationAborted(`${what} answered ${answer.status}`, false);
}

/** An account's agreements and the products they name (`tariff_code`); other fields are the service's to validate. */
const namedProductsSchema = z.object({
  supply_addresses: z.array(z.object({ supply_points: z.array(z.object({ agreements: z.array(z.object({ tariff_code: z.string().min(1) })).nullish() })) })),
});

async function checkNamedProducts(ctx: PreflightContext): Promise<void> {
  ctx.log('products: no products.json; checking that the products the accounts name exist');
  // Each code with the first account that names it, for the message. The codes are few; the accounts are read one at a time.
  const firstNamedBy = new Map<string, string>();
  for await (const item of ctx.input.accounts()) {
    if (ctx.stopped()) throw new MigrationAborted('interrupted', false);
    if (isUnreadable(item)) continue; // reported as failed by the accounts step
    const parsed = namedProductsSchema.safeParse(item.body);
    if (!parsed.success) continue; // refused by the service's validation, and reported so
    for (const address of parsed.data.supply_addresses) {
      for (const point of address.supply_points) {
        for (const { tariff_code: code } of point.agreements ?? []) if (!firstNamedBy.has(code)) firstNamedBy.set(code, item.id);
      }
    }
  }
  const missing: string[] = [];
  await pool(firstNamedBy.keys(), ctx.concurrency, ctx.stopped, async (code) => {
    const what = `reading product ${code}`;
    const answer = answered<ProductAnswer>(await ctx.sender.send((token) => ctx.client.readProduct(code, token)), what);
    if (answer.status === 404) missing.push(code);
    else if (answer.status !== 200) throw new MigrationAborted(`${what} answered ${answer.status}`, false);
  });
  if (ctx.stopped()) throw new MigrationAborted('interrupted', false);
  if (missing.length === 0) {
    ctx.log(`products: the ${firstNamedBy.size} products the accounts name exist`);
    return;
  }
  missing.sort();
  const named = missing.slice(0, NAMED).map((code) => `${code} (named by ${firstNamedBy.get(code)})`);
  const more = missing.length > NAMED ? ` and ${missing.length - NAMED} more` : '';
  throw new MigrationAborted(
    `the folder has no products.json and the service lacks ${missing.length} of the ${firstNamedBy.size} products its accounts name: ${named.join(', ')}${more}`,
    true,
    'migrate the products first (a products.json in this folder, or the folder that holds them), or correct the accounts\' tariff_code',
  );
}
