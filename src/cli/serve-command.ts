import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { runServer } from '../server.js';

export function serveCommand(): Command {
  return new Command('serve')
    .description('run the HTTP service (HOST, PORT, LEDGER_DATABASE or LEDGER_DATABASE_URL, ... from the environment)')
    .action(async () => {
      const config = loadConfig();
      await runServer(config, createLogger(config.LOG_LEVEL));
    });
}
