import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AccountImportStatusRow } from '../../../projections/account-import-statuses.js';
import { accountImportStatuses } from '../../../projections/account-import-statuses.js';
import { scheduledAnswer } from '../../answers/v2-accounts.js';
import { scheduleAccountCreation } from '../../application/account-creations.js';
import { validateAccount } from '../../application/account-import-processes.js';
import type { LedgerContext } from '../../application/context.js';
import { validateAccountPayload, type AccountPayload } from '../../domain/account-import-process/account-payload.js';
import { accountFailedValidation } from '../../domain/account-import-process/decider.js';
import { isoDateTime } from '../../domain/account-import-process/iso-dates.js';
import { DomainError, type FieldError } from '../../domain/errors.js';
import { answer } from '../answer.js';
import { httpActor, requireSupplierScope } from '../auth.js';
import { field, recordingRefusals, scopedAttempt } from '../attempts.js';
import type { AppEnv } from '../env.js';
import { bySchema, validated } from '../validation.js';

/** POST accounts/validate/ and accounts/: the account under `payload` (the platform's ValidateAccount / ScheduleAccountCreation). */
const envelopeSchema = z.object({ payload: z.record(z.string(), z.unknown()) });

/** The platform's TaskParameters: every field optional; no window means "run at once". */
export const taskParamsSchema = z
  .object({
    is_dry_run: z.boolean().optional().default(false),
    schedule_window_start: isoDateTime().nullable().optional(),
    schedule_window_end: isoDateTime().nullable().optional(),
  })
  .optional()
  .default({ is_dry_run: false });

const taskParamsEnvelopeSchema = z.object({ task_params: taskParamsSchema });

/** v2 takes the team inside the account payload, as the platform's account schema does; absent: the supplier's default. */
const payloadTeamSchema = z.object({ operations_team_name: z.string().min(1).max(255).optional() });

/** GET accounts/<code>/<ext>/: the platform's ImportStatusResponse (`kraken_identifier` is `platform_identifier` here). */
export const accountImportStatusResponseSchema = z.object({
  status: z.enum(accountImportStatuses),
  created_at: z.string(),
  modified_at: z.string(),
  platform_identifier: z.string().nullable(),
  latest_event: z.object({ event: z.string(), occurred_at: z.string(), data: z.record(z.string(), z.unknown()).nullable() }),
  latest_error: z.object({ code: z.string().nullable(), detail: z.string().nullable(), domain: z.string().nullable() }).nullable(),
});

const importProcessFailedValidation = (errors: readonly FieldError[]) =>
  new DomainError(
    'import_process_failed_validation',
    'Import process validation failed during account creation. Please validate the import process to get full details of the validation errors.',
    { errors, extra: { domain: 'import_process' } },
  );

/** The body's envelope, and the account it names, checked for scope before anything of the payload is revealed. */
async function envelope(c: Context<AppEnv>): Promise<{ body: Record<string, unknown>; payload: Record<string, unknown> }> {
  const body: unknown = await c.req.json();
  const { payload } = validated(body, bySchema(envelopeSchema));
  const supplier = payload['import_supplier'];
  if (typeof supplier === 'string') requireSupplierScope(c, supplier);
  return { body: body as Record<string, unknown>, payload };
}

/** The account's rules, then its references; its supplier was checked for scope on the raw envelope. */
async function validAccount(ctx: LedgerContext, payload: unknown, failed: (errors: readonly FieldError[]) => DomainError): Promise<AccountPayload> {
  return validateAccount(ctx, validated(payload, validateAccountPayload, failed), failed);
}

/** The v1 already-imported refusal in the v2 vocabulary (the platform's AlreadyImportedAccount example). */
function v2AlreadyImported(error: unknown): unknown {
  if (!(error instanceof DomainError) || error.code !== 'account_import_process_already_imported') return error;
  const code = 'account_import_process_already_imported';
  return new DomainError(code, error.detail, {
    attr: 'non_field_errors',
    extra: { ...error.extra, account_id: error.extra['platform_account_number'], non_field_errors: { detail: error.detail, code } },
  });
}

function statusBody(row: AccountImportStatusRow): z.infer<typeof accountImportStatusResponseSchema> {
  return {
    status: row.status,
    created_at: row.createdAt,
    modified_at: row.modifiedAt,
    platform_identifier: row.platformIdentifier,
    latest_event: {
      event: row.latestEvent,
      occurred_at: row.latestEventAt,
      data: row.latestEventData === null ? null : (JSON.parse(row.latestEventData) as Record<string, unknown>),
    },
    latest_error:
      row.latestErrorCode === null ? null : { code: row.latestErrorCode, detail: row.latestErrorDetail, domain: row.latestErrorDomain },
  };
}

/** The platform's v2 account operations (docs/v2-accounts.md), mounted under /v2/data-import. */
export function v2AccountRoutes(ctx: LedgerContext) {
  return new Hono<AppEnv>()
    .post('/accounts/validate/', async (c) => {
      const { payload } = await envelope(c);
      await validAccount(ctx, payload, accountFailedValidation);
      return answer(c, { status: 200, body: {} });
    })
    .post(
      '/accounts/',
      recordingRefusals(ctx, (c, body) => {
        const payload = field(body, 'payload');
        return scopedAttempt(c, field(payload, 'import_supplier'), field(payload, 'external_account_number'), 'schedule', field(field(body, 'task_params'), 'is_dry_run'));
      }),
      async (c) => {
        const { body, payload } = await envelope(c);
        const account = await validAccount(ctx, payload, importProcessFailedValidation);
        // Parsed under its key, so that its errors' attrs start at task_params.
        const params = validated({ task_params: body['task_params'] }, bySchema(taskParamsEnvelopeSchema)).task_params;
        const team = validated(payload, bySchema(payloadTeamSchema));
        try {
          await scheduleAccountCreation(
            ctx,
            {
              payload: account,
              operationsTeamName: team.operations_team_name,
              isDryRun: params.is_dry_run,
              window: { start: params.schedule_window_start ?? null, end: params.schedule_window_end ?? null },
            },
            httpActor(c),
          );
        } catch (error) {
          throw v2AlreadyImported(error);
        }
        return answer(c, scheduledAnswer());
      },
    )
    .get('/accounts/:supplier/:ext/', async (c) => {
      const supplier = c.req.param('supplier');
      requireSupplierScope(c, supplier);
      const row = await ctx.read.findAccountImportStatus(supplier, c.req.param('ext'));
      if (!row) throw new DomainError('not_found', 'The requested resource was not found.');
      return c.json(statusBody(row));
    });
}
