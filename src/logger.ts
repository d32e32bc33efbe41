import pino, { type Logger } from 'pino';

/** pino JSON logs; human-readable (pino-pretty) when stderr is a terminal. Logs go to stderr, leaving stdout to commands' output. */
export function createLogger(level: string, pretty = process.stderr.isTTY === true): Logger {
  if (pretty) {
    return pino({ level, transport: { target: 'pino-pretty', options: { destination: 2, colorize: true } } });
  }
  return pino({ level }, pino.destination(2));
}
