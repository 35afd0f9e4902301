// Whole-tree file operations on unpacked images: making a finished unpack read-only, and removing one again.
// Both list a directory as they go and keep a bounded number of file operations in flight, whatever the
// tree's size: node's `rm({ recursive: true })` reads a directory whole and starts one unlink per entry at
// once — for a 200,000-file catalog, 200,000 requests' native memory, which glibc's malloc then keeps
// (catalogd's RSS rose from 108 to 443 MiB removing such a tree, and stayed above 300; issue 32).
import type { Stats } from 'node:fs';
import { chmod, lstat, opendir, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** File operations a tree walk keeps in flight at most (libuv runs 4 at a time anyway). */
export const TREE_CONCURRENCY = 16;

/** Entries read from a directory per `readdir` batch. */
const DIR_BATCH = 128;

/**
 * Settles as `p` does, but to undefined where it rejects because the path is not there: ENOENT, and with `notDir`
 * also ENOTDIR (a file where the path needs a directory).
 */
export async function unlessMissing<T>(p: Promise<T>, notDir = false): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || (notDir && code === 'ENOTDIR')) return undefined;
    throw err;
  }
}

/** `lstat`, or undefined when nothing is at `path` (ENOENT, ENOTDIR). */
export const lstatOrUndefined = (path: string): Promise<Stats | undefined> => unlessMissing(lstat(path), true);

/** Removes write permission from everything under `root` (symlinks untouched). Lists directories as it goes (no array of a huge directory's entries). */
export async function makeReadOnly(root: string): Promise<void> {
  for await (const d of await opendir(root, { bufferSize: DIR_BATCH })) {
    const p = join(root, d.name);
    if (d.isDirectory()) await makeReadOnly(p);
    if (d.isSymbolicLink()) continue;
    const st = await lstat(p);
    await chmod(p, st.mode & 0o7555);
  }
  const st = await lstat(root);
  await chmod(root, st.mode & 0o7555);
}

/**
 * `rm -rf` that also works on trees made read-only by `makeReadOnly`: a missing path is fine, a file or
 * symlink is unlinked, a directory is made writable, emptied a batch of entries at a time with at most
 * `TREE_CONCURRENCY` unlinks in flight, and removed.
 */
export async function forceRemove(path: string): Promise<void> {
  const st = await lstatOrUndefined(path);
  if (!st) return;
  if (st.isDirectory()) await removeDir(path, st.mode);
  else await unlinkGone(path);
}

async function removeDir(dir: string, mode: number): Promise<void> {
  if ((mode & 0o700) !== 0o700) await chmod(dir, (mode & 0o7777) | 0o700);
  for (;;) {
    const removed = await emptyDir(dir);
    try {
      await rmdir(dir);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      // An entry the listing missed (or one created meanwhile): list again, unless this pass removed nothing.
      if ((code === 'ENOTEMPTY' || code === 'EEXIST') && removed > 0) continue;
      throw err;
    }
  }
}

/** Removes what a listing of `dir` shows; returns how many entries it removed. */
async function emptyDir(dir: string): Promise<number> {
  let removed = 0;
  const running = new Set<Promise<void>>();
  let failed: unknown;
  const d = await opendir(dir, { bufferSize: DIR_BATCH });
  try {
    for await (const e of d) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        const st = await lstat(p).catch(() => undefined);
        if (st?.isDirectory()) await removeDir(p, st.mode);
        else if (st) await unlinkGone(p);
      } else {
        const op = unlinkGone(p).then(
          () => void running.delete(op),
          (err: unknown) => {
            running.delete(op);
            failed ??= err;
          },
        );
        running.add(op);
        if (running.size >= TREE_CONCURRENCY) await Promise.race(running);
      }
      if (failed !== undefined) break;
      removed++;
    }
  } finally {
    await Promise.all(running);
    // for await closes `d` when the loop ends or breaks; an error thrown inside it closes it too.
  }
  if (failed !== undefined) throw failed;
  return removed;
}

const unlinkGone = (path: string): Promise<void> => unlessMissing(unlink(path));
