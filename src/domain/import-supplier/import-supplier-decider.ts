import type {
  ImportSupplierConfigChanged,
  ImportSupplierCreated,
  ImportSupplierEvent,
  ImportSupplierStatus,
  ImportSupplierVerified,
} from '../../../events/import-supplier.js';
import type { Decider } from '../decider.js';
import { assertNever } from '../assert-never.js';
import { DomainError } from '../errors.js';

/** The settings a config change names; an absent one stays as it is. */
type ConfigChange = Omit<ImportSupplierConfigChanged['data'], 'code' | 'changedAt'>;

export type ImportSupplierCommand =
  | (Omit<ImportSupplierCreated['data'], 'createdAt'> & { readonly type: 'CreateImportSupplier'; readonly now: string })
  | { readonly type: 'ChangeImportSupplierStatus'; readonly code: string; readonly to: ImportSupplierStatus; readonly now: string }
  | (ConfigChange & {
      readonly type: 'ChangeImportSupplierConfig';
      readonly code: string;
      /** Fact: whether `defaultOperationsTeamName` names an existing team (read when it is given). */
      readonly defaultOperationsTeamExists?: boolean;
      readonly now: string;
    })
  | (Omit<ImportSupplierVerified['data'], 'verifiedAt'> & {
      readonly type: 'RecordVerification';
      /** The service the verification says it compared with, when it says (the recorded `serviceId` is the fact: this service's). */
      readonly comparedWith?: string;
      readonly now: string;
    });

export type ImportSupplierState =
  | { readonly exists: false }
  | (Omit<ImportSupplierCreated['data'], 'createdAt'> & { readonly exists: true; readonly defaultOperationsTeamName: string | null });

/** Supplier codes appear in paths and stream ids: keep them to a safe alphabet. */
export const IMPORT_SUPPLIER_CODE_PATTERN = /^[A-Z0-9_-]{1,64}$/;

function decide(command: ImportSupplierCommand, state: ImportSupplierState): ImportSupplierEvent[] {
  switch (command.type) {
    case 'CreateImportSupplier':
      if (state.exists) throw new DomainError('import_supplier_already_exists', `Import supplier ${command.code} already exists.`);
      if (!IMPORT_SUPPLIER_CODE_PATTERN.test(command.code)) {
        throw new DomainError('invalid_import_supplier_code', 'Import supplier codes are 1-64 characters of A-Z, 0-9, _ and -.');
      }
      return [
        {
          type: 'ImportSupplierCreated',
          version: 1,
          data: {
            code: command.code,
            status: command.status,
            sendEmails: command.sendEmails,
            documentRoot: command.documentRoot,
            createdAt: command.now,
          },
        },
      ];
    case 'ChangeImportSupplierStatus':
      if (!state.exists) throw notFound(command.code);
      if (state.status === command.to) return [];
      return [
        {
          type: 'ImportSupplierStatusChanged',
          version: 1,
          data: { code: command.code, from: state.status, to: command.to, changedAt: command.now },
        },
      ];
    case 'ChangeImportSupplierConfig': {
      if (!state.exists) throw notFound(command.code);
      const team = command.defaultOperationsTeamName;
      if (typeof team === 'string' && command.defaultOperationsTeamExists !== true) {
        throw new DomainError('operations_team_name_does_not_exist', `Operations team ${team} does not exist.`, { attr: 'operations_team_name' });
      }
      const changes: ConfigChange = {};
      if (command.sendEmails !== undefined && command.sendEmails !== state.sendEmails) changes.sendEmails = command.sendEmails;
      if (command.documentRoot !== undefined && command.documentRoot !== state.documentRoot) changes.documentRoot = command.documentRoot;
      if (team !== undefined && team !== state.defaultOperationsTeamName) changes.defaultOperationsTeamName = team;
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'ImportSupplierConfigChanged', version: 1, data: { code: command.code, ...changes, changedAt: command.now } }];
    }
    case 'RecordVerification':
      if (!state.exists) throw notFound(command.code);
      if (command.comparedWith !== undefined && command.comparedWith !== command.serviceId) {
        const detail = `The verification compared the folder with service ${command.comparedWith}; this is service ${command.serviceId}.`;
        throw new DomainError('validation_error', detail, { errors: [{ attr: 'service_id', code: 'service_mismatch', detail }] });
      }
      return [
        {
          type: 'ImportSupplierVerified',
          version: 2,
          data: { code: command.code, agree: command.agree, summary: command.summary, serviceId: command.serviceId, verifiedAt: command.now },
        },
      ];
    default:
      return assertNever(command);
  }
}

function evolve(state: ImportSupplierState, event: ImportSupplierEvent): ImportSupplierState {
  switch (event.type) {
    case 'ImportSupplierCreated':
      return {
        exists: true,
        code: event.data.code,
        status: event.data.status,
        sendEmails: event.data.sendEmails,
        documentRoot: event.data.documentRoot,
        defaultOperationsTeamName: null,
      };
    case 'ImportSupplierStatusChanged':
      return state.exists ? { ...state, status: event.data.to } : state;
    case 'ImportSupplierConfigChanged':
      return state.exists
        ? {
            ...state,
            sendEmails: event.data.sendEmails ?? state.sendEmails,
            documentRoot: event.data.documentRoot === undefined ? state.documentRoot : event.data.documentRoot,
            defaultOperationsTeamName:
              event.data.defaultOperationsTeamName === undefined ? state.defaultOperationsTeamName : event.data.defaultOperationsTeamName,
          }
        : state;
    case 'ImportSupplierVerified':
      return state;
    default:
      return assertNever(event);
  }
}

function notFound(code: string): DomainError {
  return new DomainError('import_supplier_not_found', `Import supplier ${code} does not exist.`);
}

export const importSupplierDecider: Decider<ImportSupplierCommand, ImportSupplierEvent, ImportSupplierEvent, ImportSupplierState> = {
  decide,
  evolve,
  initialState: { exists: false },
};
