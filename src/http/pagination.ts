import { z } from 'zod';

/** `?after=<position>&limit=<n>` of the log-reading endpoints: positions are whole numbers, limit 1 to 1000 (default 100). */
export const positionPageQuery = {
  after: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional()
    .transform((v) => (v === undefined ? 0 : Number(v))),
  limit: z
    .string()
    .regex(/^\d{1,4}$/)
    .optional()
    .transform((v) => (v === undefined ? 100 : Number(v)))
    .refine((v) => v >= 1 && v <= 1000, 'limit is 1 to 1000'),
};
