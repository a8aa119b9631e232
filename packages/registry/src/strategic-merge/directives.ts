/** The keys a strategic merge patch reserves (k8s.io/apimachinery/pkg/util/strategicpatch). */

/** `$patch: replace | delete | merge` on a map, or as a list element. */
export const PATCH_DIRECTIVE = '$patch';
export const REPLACE = 'replace';
export const DELETE = 'delete';
export const MERGE = 'merge';

/** `$retainKeys: [...]`: keys of the original map that survive; the rest are cleared. */
export const RETAIN_KEYS = '$retainKeys';

/** `$setElementOrder/<field>: [...]`: the order of a merged list, by merge key (maps) or value (primitives). */
export const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder/';

/** `$deleteFromPrimitiveList/<field>: [...]`: values to remove from a merged list of primitives. */
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList/';
