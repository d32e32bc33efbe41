/** The SMTP adapter's defaults, apart from it so that reading the configuration does not load nodemailer. */
export const DEFAULT_SMTP_TIMEOUT_MS = 30_000;
export const DEFAULT_MAIL_FROM = 'import-ledger <no-reply@localhost>';
