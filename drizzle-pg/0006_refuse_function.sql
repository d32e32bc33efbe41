-- A check made inside a statement: `SELECT ledger_refuse('...') WHERE <the check failed>` aborts the
-- transaction with SQLSTATE LG409 and the message given. The group-commit writer sends a whole batch and
-- its COMMIT in one flight, so a check that a unit's write depends on (the Idempotency-Key reservation
-- still being the request's own) must fail in PostgreSQL, not in the client after the answer arrives.
CREATE FUNCTION ledger_refuse(message text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'LG409', MESSAGE = message;
END
$$;
