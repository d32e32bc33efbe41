import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { z } from 'zod';
import {
  type accountPayloadSchema,
  validateAccountPayload,
} from '../../../src/domain/account-import-process/account-payload.js';

/** The account payload as a caller sends it: what the tests mutate. */
export type AccountInput = z.input<typeof accountPayloadSchema>;

function load(name: string): AccountInput {
  const url = new URL(`../../fixtures/examples/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as AccountInput;
}

const DOMESTIC = load('account-domestic');
const BUSINESS = load('account-business');

/** A fresh deep copy of the domestic example, safe to mutate. */
export function domestic(): AccountInput {
  return structuredClone(DOMESTIC);
}

/** A fresh deep copy of the business example, safe to mutate. */
export function business(): AccountInput {
  return structuredClone(BUSINESS);
}

export function loadExample(name: string): unknown {
  return load(name);
}

/** Supply point `point` of supply address `address` (first ones by default). */
export function supplyPoint(payload: AccountInput, address = 0, point = 0) {
  const found = payload.supply_addresses[address]?.supply_points[point];
  if (found === undefined) throw new Error(`no supply point ${address}/${point} in fixture`);
  return found;
}

/** Writes a value of any shape at a dot path: for the wrong-type and null variants. */
export function setAt(payload: AccountInput, attr: string, value: unknown): AccountInput {
  const parts = attr.split('.');
  const last = parts.pop() ?? '';
  let node: Record<string, unknown> = payload as unknown as Record<string, unknown>;
  for (const part of parts) node = node[part] as Record<string, unknown>;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return payload;
}

/** Asserts the payload fails and that its errors include exactly `{ code, attr }`. */
export function expectError(payload: unknown, code: string, attr: string | null): void {
  const result = validateAccountPayload(payload);
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.errors.map(({ code: c, attr: a }) => ({ code: c, attr: a }))).toContainEqual({ code, attr });
}

/** Asserts the payload validates (and shows the errors when it does not). */
export function expectValid(payload: unknown): void {
  const result = validateAccountPayload(payload);
  expect(result.ok ? [] : result.errors).toEqual([]);
}
