/** Where tlcts is installed: the folder of the first package.json above the running code. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the first package.json above this file. The same from the compiled files
 * (dist/tlcts/src/...) and from the bundle (dist/tlcts/bundle/).
 */
export function packageRoot(): string | undefined {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}
