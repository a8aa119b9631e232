import type { Environment } from '@marcbachmann/cel-js';
import { registerAuthz } from './authz.ts';
import { registerLists } from './lists.ts';
import { registerQuantity } from './quantity.ts';
import { registerRegex } from './regex.ts';
import { registerStrings } from './strings.ts';
import { registerURLs } from './urls.ts';

/** kube's CEL libraries, as k8s.io/apiserver's base environment adds them. */
export function registerKubernetesLibraries(env: Environment): void {
  registerStrings(env);
  registerLists(env);
  registerRegex(env);
  registerURLs(env);
  registerQuantity(env);
  registerAuthz(env);
}
