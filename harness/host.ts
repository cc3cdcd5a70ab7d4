/** What the benchmarks say of the machine they ran on. */
import os from 'node:os';

export function hostFacts() {
  return {
    cpus: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
  };
}
