import type { CommandMetadata } from '../../events/envelope.js';
import type { LedgerEvent } from '../../events/registry.js';
import type { Decider } from '../domain/decider.js';
import type { HandleResult, StreamCommand, StreamGuard, WriteOptions } from '../store/event-store.js';
import type { Actor, LedgerContext } from './context.js';

/** A command as its use case builds it: every fact but the time (`now`), which the handler stamps. Distributes over a union. */
export type Untimed<C> = C extends { readonly now: string } ? Omit<C, 'now'> : never;

/** What one write is decided and recorded with: the time its commands are decided at, its events' metadata and the request's `beforeCommit` hook. */
export interface CommandEnvelope {
  readonly now: Date;
  readonly write: WriteOptions;
}

export interface HandleCommandOptions {
  /** Streams whose read facts the command was decided on: the write fails with a ConcurrencyError if any moved on. */
  readonly guards?: readonly StreamGuard[];
  /** Decide, append and project as usual, then roll the unit back. */
  readonly dryRun?: boolean;
  /** A worker's writes are correlated with what it works on (a task, a batch, an email) rather than with a request. */
  readonly correlationId?: string;
  /** The envelope of the write this one completes: a rolled-back dry run's recorded outcome carries the run's time and metadata. */
  readonly envelope?: CommandEnvelope;
}

/** The metadata of the events one command appends: who acts, for which request, and a causation id of its own. */
export function commandMetadata(ctx: LedgerContext, actor: Actor, correlationId: string | null = actor.requestId): CommandMetadata {
  return {
    actor: actor.actor,
    requestId: actor.requestId,
    correlationId,
    causationId: ctx.ids.uuid(),
    // Only when there is one: the metadata of every other event keeps its exact stored text.
    ...(actor.traceparent ? { traceparent: actor.traceparent } : {}),
  };
}

export type UntimedStreamCommand = StreamCommand<unknown, LedgerEvent, LedgerEvent, unknown>;

/** One command of a `handleMany` unit, widened to the port's one decider type: each is still decided by its own decider on its own stream. */
export function on<C extends { readonly now: string }, Ei extends LedgerEvent, Eo extends Ei, S>(
  streamId: string,
  decider: Decider<C, Ei, Eo, S>,
  command: NoInfer<Untimed<C>>,
): UntimedStreamCommand {
  return { streamId, decider, command } as unknown as UntimedStreamCommand;
}

/** The envelope of the write this one completes, else a new one: the clock's time, the actor's metadata, and the request's hook when it has one. */
function envelopeFor(ctx: LedgerContext, actor: Actor, options: HandleCommandOptions): CommandEnvelope {
  if (options.envelope) return options.envelope;
  const now = ctx.clock();
  const metadata = commandMetadata(ctx, actor, options.correlationId);
  return { now, write: actor.beforeCommit ? { metadata, beforeCommit: actor.beforeCommit } : { metadata } };
}

function storeOptions(envelope: CommandEnvelope, options: HandleCommandOptions) {
  return {
    ...envelope.write,
    ...(options.guards ? { guards: options.guards } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
  };
}

/**
 * The command handler (emmett's `CommandHandler`): the store reads the stream, folds it, decides and
 * appends at the version it read, in one unit; this stamps the command with the envelope's time and
 * metadata. `command` is a function of the time when other fields derive from it (a lease's expiry).
 * Retrying on a stale fact is the use case's (`withRetry`), since it re-reads the facts as well.
 */
export async function handle<C extends { readonly now: string }, Ei extends LedgerEvent, Eo extends Ei, S>(
  ctx: LedgerContext,
  actor: Actor,
  decider: Decider<C, Ei, Eo, S>,
  streamId: string,
  command: NoInfer<Untimed<C> | ((now: Date) => Untimed<C>)>,
  options: HandleCommandOptions = {},
): Promise<HandleResult<Eo, S> & { readonly envelope: CommandEnvelope }> {
  const envelope = envelopeFor(ctx, actor, options);
  const untimed = typeof command === 'function' ? command(envelope.now) : command;
  // The one place a command gets its time: `Untimed<C>` and `now` make up a `C`, which the compiler cannot follow through the union.
  const timed = { ...untimed, now: envelope.now.toISOString() } as unknown as C;
  const result = await ctx.store.handle(streamId, decider, timed, storeOptions(envelope, options));
  return { ...result, envelope };
}

/** Several commands, each on its stream (`on`), as one atomic unit stamped with one envelope; results in the order of `commands`. */
export async function handleMany(
  ctx: LedgerContext,
  actor: Actor,
  commands: readonly UntimedStreamCommand[],
  options: HandleCommandOptions = {},
): Promise<{ readonly results: HandleResult<LedgerEvent, unknown>[]; readonly envelope: CommandEnvelope }> {
  const envelope = envelopeFor(ctx, actor, options);
  const now = envelope.now.toISOString();
  const timed = commands.map((entry) => ({ ...entry, command: { ...(entry.command as object), now } }));
  const results = await ctx.store.handleMany(timed, storeOptions(envelope, options));
  return { results, envelope };
}
