ALTER TABLE `events` ADD `bulk` text;--> statement-breakpoint
-- Existing staged payloads move to the new column (the events themselves are unchanged: readers merge the two).
UPDATE `events` SET `bulk` = json_object('payload', json(json_extract(`data`, '$.payload'))), `data` = json_remove(`data`, '$.payload')
WHERE `type` IN ('AccountStaged', 'AccountRestaged') AND `bulk` IS NULL AND json_type(`data`, '$.payload') IS NOT NULL;
