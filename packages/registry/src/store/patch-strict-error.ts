import { fieldErrors, newInvalid, type StatusError } from '@kapi/apimachinery';

/**
 * How kube's patchers refuse what a patch made under fieldValidation Strict: a 422 Invalid with no kind or name whose
 * one cause is the `patch` (shown as `shown`: the patched object as Go's json.Marshal writes it, or a strategic patch as
 * Go's %v) with the strict decoding errors.
 */
export function patchStrictError(shown: string, messages: readonly string[]): StatusError {
  return newInvalid({ group: '', kind: '' }, '', [fieldErrors.invalid('patch', shown, `strict decoding error: ${messages.join(', ')}`)]);
}
