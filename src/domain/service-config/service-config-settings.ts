import type { ServiceConfigKey } from '../../../events/service-config.js';

export interface ServiceConfigSetting {
  /** The value in effect while no operator has set the key (null: off). */
  readonly defaultValue: number | null;
  /** Whether `off` (null) is an accepted value. */
  readonly offAllowed: boolean;
}

/** What each service-wide setting accepts: a new key fails to compile until it says its default and whether it can be off. */
export const serviceConfigSettings: Readonly<Record<ServiceConfigKey, ServiceConfigSetting>> = {
  'process-concurrency-limit': { defaultValue: null, offAllowed: true },
  // Outbound requests a second to each network operator (supply point pre-population); a throttle cannot be "off".
  'populate-rate-per-second': { defaultValue: 5, offAllowed: false },
  // Requests a second each API key may make to /v1/data-import/ (docs/reliability.md); off by default.
  'request-rate-per-second': { defaultValue: null, offAllowed: true },
  // obtainToken calls a minute from each client address and for each API key (docs/api.md); a guard, never "off".
  'token-requests-per-minute': { defaultValue: 30, offAllowed: false },
};

/** The value in effect: the stored one, else the key's default. */
export function effectiveConfigValue(key: ServiceConfigKey, stored: number | null): number | null {
  return stored ?? serviceConfigSettings[key].defaultValue;
}
