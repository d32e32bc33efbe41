// Loaded with `node --import` into a process the bench spawns: writes the process's own CPU time
// (user and system, microseconds: process.cpuUsage()) to $BENCH_CPU_FILE when it exits. CPU a unit of
// work is a figure that holds on a shared machine, where wall-clock rates move with the neighbours' load.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_CPU_FILE;
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify(process.cpuUsage())));
