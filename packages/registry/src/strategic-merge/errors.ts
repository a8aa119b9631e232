import { newBadRequest, StatusError } from '@kapi/apimachinery';
import { SET_ELEMENT_ORDER_PREFIX } from './directives.ts';
import { goFormat } from './go-format.ts';

/**
 * Errors of a strategic merge patch, with kube's texts (k8s.io/apimachinery/pkg/util/mergepatch). kube-apiserver
 * answers the malformed-directive ones with 400 and lists of lists with 422; the rest reach clients from kube as
 * 500 "Unknown", which misplaces the blame: kapi answers them 400, since the patch is what is wrong.
 */

export const errNoMergeKey = (item: unknown, mergeKey: string): StatusError =>
  newBadRequest(`map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`);

export const errBadPatchType = (directive: unknown, map: unknown): StatusError =>
  newBadRequest(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(map)}`);

export const errMergeListDirective = (): StatusError => newBadRequest('merging lists cannot yet be specified in the patch');

export const errRetainKeysFormat = (): StatusError => newBadRequest('invalid patch format of retainKeys');

export const errPrimitiveListFormat = (): StatusError => newBadRequest('invalid patch format of primitive list');

export const errSetElementOrderFormat = (): StatusError => newBadRequest('invalid patch format of setElementOrder list');

export const errSetElementOrderMismatch = (patchList: unknown, orderList: unknown): StatusError =>
  newBadRequest(
    `The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX.slice(0, -1)} list:\n${goFormat(orderList)}\n`,
  );

export const errNotAList = (field: string, value: unknown): StatusError =>
  newBadRequest(`expected a list at ${JSON.stringify(field)}, but received ${goFormat(value)}`);

export const errNoMergeKeyDeclared = (): StatusError => newBadRequest('cannot merge lists without merge key for type map');

export const errMixedList = (lists: readonly unknown[][]): StatusError =>
  newBadRequest(`list element types are not identical: ${lists.map(goFormat).join(' ')}`);

export const errNotAMap = (index: number): StatusError => newBadRequest(`value for key ${index} is not a map.`);

export const errListOfLists = (): StatusError =>
  new StatusError({ code: 422, reason: 'Invalid', message: 'lists of lists are not supported' });
