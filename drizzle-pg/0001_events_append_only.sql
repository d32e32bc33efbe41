-- The event log is append-only (research doc 8.2, as Commanded's init.ex does): any UPDATE or DELETE on
-- events fails, whatever the client. Statement-level, so it costs nothing per row.
CREATE FUNCTION events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events are append-only: % on events is not allowed', TG_OP;
END
$$;
--> statement-breakpoint
CREATE TRIGGER events_no_update BEFORE UPDATE OR DELETE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_immutable();
