import type { OperationsTeamEvent } from '../../../events/operations-team.js';
import type { Decider } from '../decider.js';
import { assertNever } from '../assert-never.js';
import { DomainError } from '../errors.js';

export type OperationsTeamCommand = { readonly type: 'CreateOperationsTeam'; readonly name: string; readonly now: string };
export type OperationsTeamState = { readonly exists: boolean };

/** CreateOperationsTeam, the one command. */
function decide(command: OperationsTeamCommand, state: OperationsTeamState): OperationsTeamEvent[] {
  const name = command.name.trim();
  if (name.length === 0 || name.length > 255 || name !== command.name) {
    throw new DomainError('invalid_operations_team_name', 'Team names are 1-255 characters without surrounding spaces.');
  }
  if (state.exists) throw new DomainError('operations_team_already_exists', `Operations team ${name} already exists.`);
  return [{ type: 'OperationsTeamCreated', version: 1, data: { name, createdAt: command.now } }];
}

function evolve(_state: OperationsTeamState, event: OperationsTeamEvent): OperationsTeamState {
  switch (event.type) {
    case 'OperationsTeamCreated':
      return { exists: true };
    default:
      return assertNever(event.type);
  }
}

export const operationsTeamDecider: Decider<OperationsTeamCommand, OperationsTeamEvent, OperationsTeamEvent, OperationsTeamState> = {
  decide,
  evolve,
  initialState: { exists: false },
};
