import { main } from './main.js';

// `serve` keeps the process alive through its server; other commands finish and exit with their code.
const code = await main(process.argv.slice(2));
if (code !== 0 || process.argv[2] !== 'serve') process.exitCode = code;
