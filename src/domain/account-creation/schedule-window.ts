import { DomainError } from '../errors.js';

/** The platform's horizon: a window may not end more than 4 days ahead. */
const MAX_SCHEDULE_AHEAD_MS = 4 * 24 * 60 * 60 * 1000;

/** `task_params`' window, as given (ISO 8601 date-times already checked for format), or null when absent. */
export interface ScheduleWindow {
  readonly start: string | null;
  readonly end: string | null;
}

/**
 * The platform's TaskParameters rules, in its order: start not in the past, end at most 4 days ahead, then
 * start before end. A missing start means "now" (so an end already past is "start after end"); a missing end
 * is no deadline.
 */
export function checkScheduleWindow(window: ScheduleWindow, now: string): void {
  const nowMs = Date.parse(now);
  const startMs = window.start === null ? nowMs : Date.parse(window.start);
  const endMs = window.end === null ? null : Date.parse(window.end);
  if (window.start !== null && startMs < nowMs) {
    throw new DomainError('schedule_window_start_in_past', 'The schedule window start cannot be in the past.', {
      attr: 'task_params.schedule_window_start',
    });
  }
  if (endMs !== null && endMs > nowMs + MAX_SCHEDULE_AHEAD_MS) {
    throw new DomainError('schedule_window_end_too_far_in_future', 'The schedule window end cannot be more than 4 days in the future.', {
      attr: 'task_params.schedule_window_end',
    });
  }
  if (endMs !== null && startMs >= endMs) {
    throw new DomainError('schedule_window_start__after_end', 'The schedule window start must be before its end.', {
      attr: 'non_field_errors',
    });
  }
}

/** Normalised to the log's form (UTC, milliseconds), so the worker's comparisons are plain string order. */
export const utcInstant = (iso: string): string => new Date(Date.parse(iso)).toISOString();
