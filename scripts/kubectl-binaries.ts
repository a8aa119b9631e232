import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Dev-only: the paths of the kubectl binaries a test drives (`kubectl` is 1.32; `kubectl.1.NN` sit beside the real
 * binary). Missing ones throw: a client-compatibility test fails on a machine without its client, it never skips.
 */
export function kubectlBinaries(names: readonly string[]): string[] {
  let dir: string;
  try {
    dir = dirname(execFileSync('sh', ['-c', 'readlink -f "$(command -v kubectl)"'], { encoding: 'utf8' }).trim());
  } catch {
    throw new Error('kubectl is not on PATH; client-compatibility tests need it');
  }
  return names.map((name) => {
    const path = join(dir, name);
    if (!existsSync(path)) throw new Error(`${path} is missing; client-compatibility tests need it`);
    return path;
  });
}

/** Dev-only: a kubeconfig for a plain-HTTP test server on loopback (no credentials), namespace default. */
export async function writePlainKubeconfig(path: string, serverUrl: string): Promise<void> {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- cluster: {server: "${serverUrl}"}`,
      '  name: kapi',
      'contexts:',
      '- context: {cluster: kapi, user: kapi, namespace: default}',
      '  name: kapi',
      'current-context: kapi',
      'users:',
      '- name: kapi',
      '  user: {}',
      '',
    ].join('\n'),
  );
}
