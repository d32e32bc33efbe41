import { constants } from 'node:os';
import { main } from './main.js';

// A reader that stops early (`| head -1`) makes the next write fail with EPIPE: the command then ends as any
// Unix filter would, quietly, with a SIGPIPE death's status (128 + 13). Other write errors stay loud.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(128 + constants.signals.SIGPIPE);
    throw error;
  });
}

// `serve` keeps the process alive through its server; other commands finish and exit with their code.
const code = await main(process.argv.slice(2));
if (code !== 0 || process.argv[2] !== 'serve') process.exitCode = code;
