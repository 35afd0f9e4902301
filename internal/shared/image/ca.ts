// Extra trust from a directory of PEM files (a mounted ConfigMap or Secret), for registry and
// catalogd clients.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Every file in `dir`, sorted by name; dotfiles (a mount's `..data`) and subdirectories skipped. */
export async function readCertificateDir(dir: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const name of (await readdir(dir)).sort()) {
    if (name.startsWith('.')) continue;
    try {
      out.push(await readFile(join(dir, name)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EISDIR') throw err;
    }
  }
  return out;
}
