import { describe, it } from 'vitest';
import { business, domestic, expectError, expectValid, setAt, supplyPoint } from './account-payload-fixtures.js';

describe('statements', () => {
  it('bill_period_from_date after bill_period_to_date -> start_date_later_than_end_date', () => {
    const input = setAt(domestic(), 'statements.0.bill_period_from_date', '2025-06-01');
    expectError(input, 'start_date_later_than_end_date', 'statements.0.bill_period_to_date');
  });

  it('a one-day period is fine; the four fields are required', () => {
    expectValid(setAt(domestic(), 'statements.0.bill_period_from_date', '2025-05-31'));
    expectError(setAt(domestic(), 'statements.0.statement_id', undefined), 'required', 'statements.0.statement_id');
    expectError(setAt(domestic(), 'statements.0.statement_path', ''), 'blank', 'statements.0.statement_path');
  });
});

describe('supplementary ledgers', () => {
  const cheque = 'supplementary_ledgers.0.energy_cheques.0';

  it('ledger_code is ENERGY_CHEQUE_LEDGER', () => {
    expectError(setAt(domestic(), 'supplementary_ledgers.0.ledger_code', 'MAIN'), 'invalid_choice', 'supplementary_ledgers.0.ledger_code');
  });

  it('energy cheques: integer amount, known source and status, ordered protection dates', () => {
    expectError(setAt(domestic(), `${cheque}.amount`, 150.5), 'invalid', `${cheque}.amount`);
    expectError(setAt(domestic(), `${cheque}.source`, 'EMAIL'), 'invalid_choice', `${cheque}.source`);
    expectError(setAt(domestic(), `${cheque}.status`, 'LOST'), 'invalid_choice', `${cheque}.status`);
    expectError(setAt(domestic(), `${cheque}.protection_to`, '2025-03-31'), 'start_date_later_than_end_date', `${cheque}.protection_to`);
    expectError(setAt(domestic(), `${cheque}.valid_to`, '2026-02-29'), 'invalid', `${cheque}.valid_to`);
  });
});

describe('notes', () => {
  it('a note needs a body or a document path -> note_body_or_document_path_not_found', () => {
    expectError(setAt(domestic(), 'notes.0.body', ''), 'note_body_or_document_path_not_found', 'notes.0');
    expectError(setAt(domestic(), 'notes.0.body', undefined), 'note_body_or_document_path_not_found', 'notes.0');
  });

  it('document paths alone are enough', () => {
    const input = setAt(domestic(), 'notes.0.body', undefined);
    expectValid(setAt(input, 'notes.0.document_paths', [{ document_path: 'notes/LEG-0000001/letter.pdf' }]));
  });

  it('created_at is optional but a datetime when given', () => {
    expectValid(setAt(domestic(), 'notes.0.created_at', undefined));
    expectError(setAt(domestic(), 'notes.0.created_at', '2025-03-02'), 'invalid', 'notes.0.created_at');
  });
});

describe('account campaigns and metadata', () => {
  it('a repeated campaign slug -> duplicate_account_campaigns on the later one', () => {
    const input = setAt(domestic(), 'account_campaigns', [{ slug: 'winter-2025' }, { slug: 'spring-2025' }, { slug: 'winter-2025' }]);
    expectError(input, 'duplicate_account_campaigns', 'account_campaigns.2.slug');
  });

  it('a repeated metadata key -> metadata_has_duplicate_keys on the later one', () => {
    const input = setAt(domestic(), 'metadata.1', { key: 'legacy_crm', value: {} });
    expectError(input, 'metadata_has_duplicate_keys', 'metadata.1.key');
  });

  it('a metadata value is an object', () => {
    expectError(setAt(domestic(), 'metadata.0.value', 'GOLD'), 'invalid', 'metadata.0.value');
    expectError(setAt(domestic(), 'metadata.0.value', ['GOLD']), 'invalid', 'metadata.0.value');
  });
});

describe('payment preferences', () => {
  it('supply_point_identifier must name a supply point of the payload', () => {
    const input = setAt(domestic(), 'payment_preferences.1.supply_point_identifier', '99999999999999');
    expectError(input, 'payment_preference_supply_point_not_found', 'payment_preferences.1.supply_point_identifier');
  });

  it('one preference per supply point', () => {
    const input = setAt(domestic(), 'payment_preferences.1.supply_point_identifier', '09111642617347');
    expectError(input, 'duplicate_supply_point_in_payment_preferences', 'payment_preferences.1.supply_point_identifier');
  });

  it('ACTIVE_EXISTING and ACTIVE_NEW need instruction_reference_params', () => {
    expectError(setAt(business(), 'payment_preferences.0.instruction_reference_params', undefined), 'required', 'payment_preferences.0.instruction_reference_params');
    expectError(setAt(domestic(), 'payment_preferences.0.instruction_reference_params', undefined), 'required', 'payment_preferences.0.instruction_reference_params');
    expectError(
      setAt(domestic(), 'payment_preferences.0.instruction_reference_params.vendor_reference', ''),
      'blank',
      'payment_preferences.0.instruction_reference_params.vendor_reference',
    );
  });

  it('PASSIVE must not carry instruction_reference_params', () => {
    const input = setAt(domestic(), 'payment_preferences.1.instruction_reference_params', { vendor_name: 'GOCARDLESS', vendor_reference: 'X' });
    expectError(input, 'passive_payment_preference_with_instruction_reference_params', 'payment_preferences.1.instruction_reference_params');
  });

  it('ACTIVE_NEW must match a payment instruction of its supply point', () => {
    const wrongReference = setAt(domestic(), 'payment_preferences.0.instruction_reference_params.vendor_reference', 'MD000999');
    expectError(wrongReference, 'active_new_payment_preference_invalid_instruction_identifier', 'payment_preferences.0.instruction_reference_params');
    const wrongVendor = setAt(domestic(), 'payment_preferences.0.instruction_reference_params.vendor_name', 'STRIPE');
    expectError(wrongVendor, 'active_new_payment_preference_invalid_instruction_identifier', 'payment_preferences.0.instruction_reference_params');
  });

  it('ACTIVE_NEW only looks at the instructions of its own supply point', () => {
    const input = domestic();
    const elec = supplyPoint(input, 0, 0);
    supplyPoint(input, 0, 1).payment_instructions = elec.payment_instructions;
    elec.payment_instructions = [];
    expectError(input, 'active_new_payment_preference_invalid_instruction_identifier', 'payment_preferences.0.instruction_reference_params');
  });

  it('type: missing -> required, unknown -> invalid_choice', () => {
    expectError(setAt(domestic(), 'payment_preferences.1.type', undefined), 'required', 'payment_preferences.1.type');
    expectError(setAt(domestic(), 'payment_preferences.1.type', 'DIRECT'), 'invalid_choice', 'payment_preferences.1.type');
  });
});

describe('business accounts', () => {
  it('a BUSINESS account without business -> business_field_required', () => {
    expectError(setAt(business(), 'business', undefined), 'business_field_required', 'business');
  });

  it('siret: 14 digits passing the Luhn check, else invalid_siret', () => {
    expectError(setAt(business(), 'business.siret', '44306184100048'), 'invalid_siret', 'business.siret');
    expectError(setAt(business(), 'business.siret', '4430618410004'), 'invalid_siret', 'business.siret');
    expectError(setAt(business(), 'business.siret', '443 061 841 00047'), 'invalid_siret', 'business.siret');
  });

  it('business_type is required, details are {key, value} strings', () => {
    expectError(setAt(business(), 'business.business_type', undefined), 'required', 'business.business_type');
    expectError(setAt(business(), 'business.details.0.value', 443061841), 'invalid', 'business.details.0.value');
  });

  it('a domestic account sending business or account_contracts -> business_fields_provided_for_domestic_accounts', () => {
    const withBusiness = setAt(business(), 'account_type', undefined);
    expectError(withBusiness, 'business_fields_provided_for_domestic_accounts', 'business');
    expectError(withBusiness, 'business_fields_provided_for_domestic_accounts', 'account_contracts');
    const explicitDomestic = setAt(domestic(), 'account_type', 'DOMESTIC');
    expectError(setAt(explicitDomestic, 'business', business().business), 'business_fields_provided_for_domestic_accounts', 'business');
  });
});

describe('account contracts', () => {
  const terms = 'account_contracts.0.versions.0.terms';

  it('an unknown or missing term_type is reported on term_type', () => {
    expectError(setAt(business(), `${terms}.0.term_type`, 'DISCOUNT'), 'invalid_choice', `${terms}.0.term_type`);
    expectError(setAt(business(), `${terms}.0.term_type`, undefined), 'required', `${terms}.0.term_type`);
  });

  it('each term type checks its own fields', () => {
    expectError(setAt(business(), `${terms}.2.days`, undefined), 'required', `${terms}.2.days`);
    expectError(setAt(business(), `${terms}.3.guarantee_of_origin_percentage`, 101), 'max_value', `${terms}.3.guarantee_of_origin_percentage`);
    expectError(setAt(business(), `${terms}.1.pays_by_direct_debit`, 'yes'), 'invalid', `${terms}.1.pays_by_direct_debit`);
    expectError(setAt(business(), `${terms}.5.period_start_month`, 13), 'max_value', `${terms}.5.period_start_month`);
  });

  it('a contract needs an identifier, a valid_from_date and at least one version', () => {
    expectError(setAt(business(), 'account_contracts.0.identifier', undefined), 'required', 'account_contracts.0.identifier');
    expectError(setAt(business(), 'account_contracts.0.valid_from_date', '2025-7-1'), 'invalid', 'account_contracts.0.valid_from_date');
    expectError(setAt(business(), 'account_contracts.0.versions', []), 'empty', 'account_contracts.0.versions');
  });
});
