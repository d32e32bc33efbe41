import { TEMP_CLASSES_OF, UNIT_TYPE_OF } from '../../domain/product/product-payload-rules.js';
import { MAX_IDENTIFIERS_PER_BATCH } from '../../domain/supply-point/populate-request.js';

/**
 * What the operations' descriptions say of the rules JSON Schema cannot: the rules across fields, and the
 * ones on what a request names (a product, a document, a contract). Each is said with the field it is
 * reported at and its code (`errors[].code`), as a refusal reports it; the field rules are in the schemas.
 */

/** The account payload's, whichever operation takes it. */
export const ACCOUNT_RULES =
  'Across fields (each refusal at the field named): a `BUSINESS` `account_type` needs `business` (`business_field_required`), any other has neither `business` nor `account_contracts` (`business_fields_provided_for_domestic_accounts`); ' +
  'a supply point `identifier` appears once in the payload (`duplicate_meter_points_provided` twice under one supply address, `duplicate_meter_points_on_different_supply_addresses_provided` under two); ' +
  "a supply point's `agreements` follow each other day after day, sorted by `effective_from`, only the last open-ended (`gaps_or_overlaps_in_agreement_dates`, at the agreement); " +
  'each of `payment_preferences` names a supply point of the payload by its `supply_point_identifier` (`payment_preference_supply_point_not_found`), each supply point once (`duplicate_supply_point_in_payment_preferences`); ' +
  "an `ACTIVE_NEW` preference's `instruction_reference_params` name a payment instruction of that supply point (`active_new_payment_preference_invalid_instruction_identifier`), a `PASSIVE` one has no `instruction_reference_params` (`passive_payment_preference_with_instruction_reference_params`); " +
  "a statement's `bill_period_to_date` and an energy cheque's `protection_to` are not before their start (`start_date_later_than_end_date`); " +
  'each of `notes` has a `body` or a document path (`note_body_or_document_path_not_found`, at the note); `account_campaigns` have distinct `slug`s (`duplicate_account_campaigns`) and `metadata` distinct `key`s (`metadata_has_duplicate_keys`). ' +
  "On what it names: an agreement's `tariff_code` is an existing product (`product_code_does_not_exist`) of its supply point's market (`product_market_mismatch`); " +
  "`business_contract_identifier` names a contract of a business of the supplier (`business_contract_not_found`).";

const unitTypes = Object.entries(UNIT_TYPE_OF).map(([category, unit]) => `\`${category}\`: \`${unit}\``).join(', ');
const tempClasses = Object.entries(TEMP_CLASSES_OF).map(([calendar, classes]) => `\`${calendar}\`: ${classes.map((c) => `\`${c}\``).join(' or ')}`).join('; ');

/** The products payload's. */
export const PRODUCT_RULES =
  `Across fields (each refusal at the field named): a rate's \`unit_type\` is its \`band_category\`'s (${unitTypes}; else \`unit_type_does_not_match_band_category\`); ` +
  "an electricity rate's `temp_class` is absent on a `STANDING_CHARGE` (`field_not_allowed`), " +
  `given on a \`CONSUMPTION_CHARGE\` (\`required\`), and one of its \`provider_calendar\`'s classes (${tempClasses}; else \`temp_class_does_not_match_calendar\`); ` +
  "a gas rate's `price_level` likewise (`field_not_allowed`, `required`); " +
  '`min_subscribed_max_power` is not above `max_subscribed_max_power`, nor `min_annual_consumption` above `max_annual_consumption` (`min_greater_than_max`, at the max); ' +
  "two rates of a product's band do not start on the same `valid_from_date` (`duplicate_rate_valid_from`).";

/** A business's contracts, on business/ and business-contracts/create/. */
export const CONTRACT_RULES =
  'Across fields (each refusal at the field named): contract `identifier`s are distinct in the request (`duplicate_contract_identifiers`) and not already taken (`contract_with_identifier_exists`); ' +
  "a version's `applicable_at_date` is not before its contract's `valid_from_date` (`version_applicable_before_contract_valid_from`); " +
  'every `product_code` a term names is an existing product (`product_code_does_not_exist`).';

/** What a post-import request's records name in the supplier's document store. */
const DOCUMENTS = "exists in the supplier's document store (`path_does_not_exist_in_file_store`)";

export const NOTE_RULES =
  'Across fields (each refusal at the field named): each of `notes` has a `body` or a document path (`note_body_or_document_path_not_found`, at the note); ' +
  `its \`unpin_at\` is after its \`created_at\` (\`note_unpin_at_earlier_than_creation_date\`); every \`document_path\` ${DOCUMENTS}.`;

export const TRANSACTION_RULES =
  'Across fields (each refusal at the field named): an `amount` is never zero (`zero_transaction_amount`), a `PAYMENT`\'s or `REPAYMENT`\'s is positive (`negative_transaction_amount`), ' +
  "a `SUPPLY_CHARGE`'s is its `line_items`' `net_amount` plus its `tax_items`' `amount`, to the cent (`ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount`); " +
  "a line item's `end_date` is not before its `start_date` (`start_date_later_than_end_date`); `transaction_id`s are distinct in the request (`duplicate_transaction_ids`); " +
  'a `transaction_date` is not in the future (`transaction_in_future`); a `product_code` is an existing product (`product_code_does_not_exist`).';

export const STATEMENT_RULES =
  "Across fields (each refusal at the field named): a statement's `bill_period_to_date` is not before its `bill_period_from_date` (`start_date_later_than_end_date`); " +
  `\`statement_id\`s are distinct in the request (\`duplicate_statement_ids\`) and new to the account (\`historical_statement_already_exists\`); every \`statement_path\` ${DOCUMENTS}.`;

export const POPULATE_RULES = `At least one identifier in \`prm_ids\` and \`pce_ids\` together (\`no_supply_point_identifiers\`), at most ${MAX_IDENTIFIERS_PER_BATCH} (\`too_many_supply_point_identifiers\`).`;

export const BUSINESS_INSTRUCTION_RULES = '`accounts` name each account once (`children_with_duplicate_values`, at the repeated `external_account_number`).';

export const BUSINESS_DETAIL_RULES = "The business's `details` have distinct keys (`children_with_duplicate_values`, at the repeated `key`).";
