import { apiKeyStreamId } from '../../events/api-key.js';
import { importSupplierStreamId, type ImportSupplierStatus } from '../../events/import-supplier.js';
import { operationsTeamStreamId } from '../../events/operations-team.js';
import { serviceConfigStreamId, type ServiceConfigKey } from '../../events/service-config.js';
import { apiKeyDecider } from '../domain/api-key/api-key-decider.js';
import { importSupplierDecider } from '../domain/import-supplier/import-supplier-decider.js';
import { operationsTeamDecider } from '../domain/operations-team/operations-team-decider.js';
import { serviceConfigDecider } from '../domain/service-config/service-config-decider.js';
import { handle } from './command-handler.js';
import { hashApiKey, type Actor, type LedgerContext } from './context.js';

export interface CreateImportSupplierInput {
  readonly code: string;
  readonly status: ImportSupplierStatus;
  readonly sendEmails: boolean;
  readonly documentRoot: string | null;
}

export async function createImportSupplier(ctx: LedgerContext, input: CreateImportSupplierInput, actor: Actor): Promise<void> {
  await handle(ctx, actor, importSupplierDecider, importSupplierStreamId(input.code), { type: 'CreateImportSupplier', ...input });
}

/** Returns false when the supplier already had that status. */
export async function setImportSupplierStatus(
  ctx: LedgerContext,
  code: string,
  to: ImportSupplierStatus,
  actor: Actor,
): Promise<boolean> {
  const result = await handle(ctx, actor, importSupplierDecider, importSupplierStreamId(code), { type: 'ChangeImportSupplierStatus', code, to });
  return result.events.length > 0;
}

export async function setImportSupplierConfig(
  ctx: LedgerContext,
  code: string,
  change: { sendEmails?: boolean; documentRoot?: string | null; defaultOperationsTeamName?: string | null },
  actor: Actor,
): Promise<boolean> {
  const team = change.defaultOperationsTeamName;
  const teamFact = typeof team === 'string' ? { defaultOperationsTeamExists: await ctx.read.operationsTeamExists(team) } : {};
  const result = await handle(ctx, actor, importSupplierDecider, importSupplierStreamId(code), {
    type: 'ChangeImportSupplierConfig',
    code,
    ...change,
    ...teamFact,
  });
  return result.events.length > 0;
}

export async function createOperationsTeam(ctx: LedgerContext, name: string, actor: Actor): Promise<void> {
  await handle(ctx, actor, operationsTeamDecider, operationsTeamStreamId(name), { type: 'CreateOperationsTeam', name });
}

/** Issues a key scoped to the given suppliers. The key is returned once and only its hash is kept. */
export async function createApiKey(
  ctx: LedgerContext,
  input: { suppliers: readonly string[]; label: string | null },
  actor: Actor,
): Promise<{ keyId: string; key: string }> {
  const { keyId, key } = ctx.ids.apiKey();
  const unknownSuppliers: string[] = [];
  for (const code of input.suppliers) {
    if (!(await ctx.read.findImportSupplier(code))) unknownSuppliers.push(code);
  }
  await handle(ctx, actor, apiKeyDecider, apiKeyStreamId(keyId), {
    type: 'CreateApiKey',
    keyId,
    keyHash: hashApiKey(key),
    suppliers: input.suppliers,
    unknownSuppliers,
    label: input.label,
  });
  return { keyId, key };
}

/** Returns false when the key was already revoked. */
export async function revokeApiKey(ctx: LedgerContext, keyId: string, actor: Actor): Promise<boolean> {
  const result = await handle(ctx, actor, apiKeyDecider, apiKeyStreamId(keyId), { type: 'RevokeApiKey', keyId });
  return result.events.length > 0;
}

export async function setServiceConfig(
  ctx: LedgerContext,
  key: ServiceConfigKey,
  value: number | null,
  actor: Actor,
): Promise<boolean> {
  const result = await handle(ctx, actor, serviceConfigDecider, serviceConfigStreamId, { type: 'SetServiceConfig', key, value });
  return result.events.length > 0;
}
