import type { Context } from 'hono';
import type { Answer } from '../answers/answer.js';
import type { AppEnv } from './env.js';

/**
 * Renders an operation's answer as JSON, as `c.json` would (the same bytes and
 * Content-Type), and keeps its text on the context: the Idempotency-Key
 * middleware stores that text rather than reading the response back, which
 * would turn @hono/node-server's lightweight response into a WHATWG one with
 * its body teed into two streams.
 */
export function answer(c: Context<AppEnv>, { status, body }: Answer): Response {
  const text = JSON.stringify(body);
  const res = c.body(text, status, { 'Content-Type': 'application/json' });
  c.set('answer', { res, text });
  return res;
}

/** The text of the response the request was answered with: kept by `answer`, or read back when made otherwise. */
export async function answeredText(c: Context<AppEnv>): Promise<string> {
  const rendered = c.get('answer');
  return rendered !== undefined && rendered.res === c.res ? rendered.text : c.res.clone().text();
}
