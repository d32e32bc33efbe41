import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { processAnswer, stageAnswer } from '../../answers/account-import-processes.js';
import { processAccount, stageAccount, validateAccount } from '../../application/account-import-processes.js';
import type { LedgerContext } from '../../application/context.js';
import { accountPayloadSchema, validateAccountPayload, type AccountPayload } from '../../domain/account-import-process/account-payload.js';
import { accountFailedValidation, dryRunRolledBack } from '../../domain/account-import-process/decider.js';
import { answer } from '../answer.js';
import { httpActor, requireSupplierScope, scopedBody } from '../auth.js';
import type { AppEnv } from '../env.js';
import { field, recordingRefusals, scopedAttempt } from '../attempts.js';
import { bySchema, validated } from '../validation.js';

/** POST validate-account/ (spec 4.6): the account payload; 200 echoes the validated data (unknown fields dropped). */
export const validateAccountRequestSchema = accountPayloadSchema;
export const validateAccountResponseSchema = accountPayloadSchema;

/** POST account-import-process/create-or-update/ (spec 4.7). */
export const stageAccountRequestSchema = accountPayloadSchema;

/** POST account-import-process/process/ (spec 4.8). */
export const processAccountRequestSchema = z.object({
  external_account_number: z.string().min(1).max(128),
  import_supplier_code: z.string().min(1).max(64),
  /** Optional as on the platform: left out, the supplier's default team, else `operations_team_should_be_provided`. */
  operations_team_name: z.string().min(1).max(255).optional(),
  dry_run: z.boolean().optional().default(false),
});

/** Scope first (403 before any detail of the payload is revealed), then the payload's rules. */
async function validatedAccount(c: Context<AppEnv>): Promise<AccountPayload> {
  return validated(await scopedBody(c), validateAccountPayload, accountFailedValidation);
}

export const PROCESS_PATH = '/v1/data-import/account-import-process/process/';

export function accountImportProcessRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>()
    .post('/validate-account/', async (c) => answer(c, { status: 200, body: await validateAccount(ctx, await validatedAccount(c)) }))
    // A refusal (payload rules included) is recorded on the account's audit stream.
    .post(
      '/account-import-process/create-or-update/',
      recordingRefusals(ctx, (c, body) => scopedAttempt(c, field(body, 'import_supplier'), field(body, 'external_account_number'), 'stage', false)),
      async (c) => {
        const account = await validatedAccount(c);
        const { created } = await stageAccount(ctx, account, httpActor(c));
        return answer(c, stageAnswer({ importSupplier: account.import_supplier, externalAccountNumber: account.external_account_number, created }));
      },
    )
    .post(
      '/account-import-process/process/',
      recordingRefusals(ctx, (c, body) =>
        scopedAttempt(c, field(body, 'import_supplier_code'), field(body, 'external_account_number'), 'process', field(body, 'dry_run')),
      ),
      async (c) => {
        const request = validated(await c.req.json(), bySchema(processAccountRequestSchema));
        requireSupplierScope(c, request.import_supplier_code);
        const result = await processAccount(
          ctx,
          {
            importSupplier: request.import_supplier_code,
            externalAccountNumber: request.external_account_number,
            operationsTeamName: request.operations_team_name ?? null,
            dryRun: request.dry_run,
          },
          httpActor(c),
        );
        if (result.dryRun) throw dryRunRolledBack();
        return answer(c, processAnswer({ externalAccountNumber: request.external_account_number, platformAccountNumber: result.platformAccountNumber }));
      },
    );
}
