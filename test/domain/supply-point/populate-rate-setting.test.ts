import { describe, expect, it } from 'vitest';
import { serviceConfigDecider } from '../../../src/domain/service-config/service-config-decider.js';
import { effectiveConfigValue, serviceConfigSettings } from '../../../src/domain/service-config/service-config-settings.js';
import { given } from '../../support/given.js';

const NOW = '2026-11-21T10:00:00.000Z';

describe('populate-rate-per-second setting', () => {
  it('defaults to 5 and cannot be turned off', () => {
    expect(serviceConfigSettings['populate-rate-per-second']).toEqual({ defaultValue: 5, offAllowed: false });
    expect(effectiveConfigValue('populate-rate-per-second', null)).toBe(5);
    expect(effectiveConfigValue('populate-rate-per-second', 2)).toBe(2);
    expect(effectiveConfigValue('process-concurrency-limit', null)).toBeNull();
  });

  it('takes a whole number of at least 1; off and 0 are refused', () => {
    given(serviceConfigDecider)
      .when({ type: 'SetServiceConfig', key: 'populate-rate-per-second', value: 3, now: NOW })
      .then([{ type: 'ServiceConfigChanged', version: 1, data: { key: 'populate-rate-per-second', value: 3, changedAt: NOW } }]);
    const off = given(serviceConfigDecider)
      .when({ type: 'SetServiceConfig', key: 'populate-rate-per-second', value: null, now: NOW })
      .thenFails('invalid_config_value');
    expect(off.detail).toMatch(/cannot be turned off/);
    given(serviceConfigDecider).when({ type: 'SetServiceConfig', key: 'populate-rate-per-second', value: 0, now: NOW }).thenFails('invalid_config_value');
    // the other setting still turns off
    given(serviceConfigDecider)
      .when({ type: 'SetServiceConfig', key: 'process-concurrency-limit', value: null, now: NOW })
      .then([]);
  });
});
