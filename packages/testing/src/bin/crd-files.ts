import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

const MANIFEST = /\.(ya?ml|json)$/i;

/**
 * The texts of the manifest files `paths` name: a file as it is, a directory's *.yaml, *.yml and *.json files (not
 * its subdirectories) in name order, so installs are repeatable.
 */
export async function readCRDFiles(paths: readonly string[]): Promise<string[]> {
  const texts: string[] = [];
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) {
      const names = (await readdir(path, { withFileTypes: true }))
        .filter((e) => e.isFile() && MANIFEST.test(e.name))
        .map((e) => e.name)
        .sort();
      if (names.length === 0) throw new Error(`--crds ${path}: no *.yaml, *.yml or *.json files`);
      for (const name of names) texts.push(await readFile(join(path, name), 'utf8'));
    } else {
      texts.push(await readFile(path, 'utf8'));
    }
  }
  return texts;
}
