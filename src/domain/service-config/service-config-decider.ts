import type { ServiceConfigEvent, ServiceConfigKey } from '../../../events/service-config.js';
import { ownedEvolution, type Decider } from '../decider.js';
import { assertNever } from '../assert-never.js';
import { DomainError } from '../errors.js';
import { serviceConfigSettings } from './service-config-settings.js';

export type ServiceConfigCommand = {
  readonly type: 'SetServiceConfig';
  readonly key: ServiceConfigKey;
  /** null turns the setting off. */
  readonly value: number | null;
  readonly now: string;
};

export type ServiceConfigState = ReadonlyMap<ServiceConfigKey, number | null>;

/** SetServiceConfig, the one command. */
function decide(command: ServiceConfigCommand, state: ServiceConfigState): ServiceConfigEvent[] {
  const { offAllowed } = serviceConfigSettings[command.key];
  if (command.value === null ? !offAllowed : !Number.isSafeInteger(command.value) || command.value < 1) {
    throw new DomainError('invalid_config_value', `${command.key} must be a whole number of at least 1${offAllowed ? ', or off' : ' (it cannot be turned off)'}.`);
  }
  if ((state.get(command.key) ?? null) === command.value) return [];
  return [{ type: 'ServiceConfigChanged', version: 1, data: { key: command.key, value: command.value, changedAt: command.now } }];
}

/** Folded into a map the fold owns (see `ownedEvolution`): one copy per fold, not one per event. */
function step(state: Map<ServiceConfigKey, number | null>, event: ServiceConfigEvent): Map<ServiceConfigKey, number | null> {
  switch (event.type) {
    case 'ServiceConfigChanged':
      return state.set(event.data.key, event.data.value);
    default:
      return assertNever(event.type);
  }
}

export const serviceConfigDecider: Decider<ServiceConfigCommand, ServiceConfigEvent, ServiceConfigEvent, ServiceConfigState> = {
  decide,
  ...ownedEvolution<ServiceConfigState, ServiceConfigEvent, Map<ServiceConfigKey, number | null>>({ own: (state) => new Map(state), step }),
  initialState: new Map(),
};
