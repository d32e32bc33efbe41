import { constants } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { main } from './main.js';

// migrate and verify hold little (the requests in flight, the folder read a line at a time) but allocate
// fast, and on a machine with gigabytes of memory V8 lets a heap that allocates fast grow up to 4 times what
// survived its last collection: migrate reached 286 MB at a million accounts. V8's own factor for small
// devices, 1.3, keeps their memory near what they hold (docs/migrate.md, "Memory and the HTTP client").
// V8 reads the flag at each collection, so setting it before the command starts equals the command line's.
if (process.argv[2] === 'migrate' || process.argv[2] === 'verify') setFlagsFromString('--heap-growing-percent=30');

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
