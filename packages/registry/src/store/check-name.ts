import { newBadRequest } from '@kapi/apimachinery';

/**
 * handlers.checkName: the object of a PUT (or a patch's result) names the object of the URL. A missing or empty name
 * is a mismatch too: kube-apiserver compares the two strings and answers 400.
 */
export function checkName(objName: string | undefined, name: string): void {
  if ((objName ?? '') !== name)
    throw newBadRequest(`the name of the object (${objName ?? ''}) does not match the name on the URL (${name})`);
}
