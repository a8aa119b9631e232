import { type FieldError, fieldErrors, isJsonObject, isValidPathSegmentName, parseGroupVersion } from '@kapi/apimachinery';
import { validateObjectMeta } from '@kapi/registry';
import { child, index, key } from './field-path.ts';
import type { Structural } from './structural.ts';

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

/** validation.IsDNS1035Label, with RegexError's "',  or '" spacing. */
function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(v, 'utf8') > 63) errs.push('must be no more than 63 characters');
  if (!DNS1035_LABEL_RE.test(v))
    errs.push(`${DNS1035_LABEL_MSG} (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL_FMT}')`);
  return errs;
}

/** path.ValidatePathSegmentName: a generateName prefix may end in anything but '/' and '%'. */
function pathSegmentName(name: string, prefix: boolean): string[] {
  if (!prefix) return isValidPathSegmentName(name);
  const errs: string[] = [];
  if (name.includes('/')) errs.push(`may not contain '/'`);
  if (name.includes('%')) errs.push(`may not contain '%'`);
  return errs;
}

/**
 * objectmeta.Validate (schema/objectmeta/validation.go): every x-kubernetes-embedded-resource object in `obj` (and
 * `obj` itself when `isResourceRoot`) has an apiVersion (a group/version) and a kind (a DNS-1035 label in any case),
 * both strings, and valid metadata (ObjectMeta validation with path-segment names, namespaced when it names a
 * namespace, a missing name allowed). Paths follow the object (`spec.template.kind`), under `path`.
 *
 * kube first decodes metadata into ObjectMeta and reports a field of the wrong type with the JSON decoder's text;
 * here such a field is reported as the registry's ObjectMeta validation reports it (`must be a string`, …).
 */
export function validateEmbeddedResources(path: string, obj: unknown, s: Structural | undefined, isResourceRoot: boolean): FieldError[] {
  const schema = isResourceRoot && !s?.xEmbeddedResource ? { ...s, xEmbeddedResource: true } : s;
  const errs: FieldError[] = [];
  walk(path, obj, schema, errs);
  return errs;
}

function walk(path: string, x: unknown, s: Structural | undefined, errs: FieldError[]): void {
  if (s === undefined) return;
  if (Array.isArray(x)) {
    for (const [i, v] of x.entries()) walk(index(path, i), v, s.items, errs);
    return;
  }
  if (!isJsonObject(x)) return;
  if (s.xEmbeddedResource) validateEmbeddedResource(path, x, errs);
  for (const [k, v] of Object.entries(x)) {
    const prop = s.properties?.get(k);
    if (prop !== undefined) walk(child(path, k), v, prop, errs);
    else if (s.additionalProperties !== undefined) walk(key(path, k), v, s.additionalProperties.structural, errs);
  }
}

function validateEmbeddedResource(path: string, x: Record<string, unknown>, errs: FieldError[]): void {
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(fieldErrors.required(child(path, 'apiVersion')));
  if (!Object.hasOwn(x, 'kind')) errs.push(fieldErrors.required(child(path, 'kind')));
  for (const [k, v] of Object.entries(x)) {
    const at = child(path, k);
    if (k === 'apiVersion') {
      if (typeof v !== 'string') errs.push(fieldErrors.invalid(at, v, 'must be a string'));
      else if (v === '') errs.push(fieldErrors.required(at));
      else {
        try {
          parseGroupVersion(v);
        } catch (e) {
          errs.push(fieldErrors.invalid(at, v, (e as Error).message));
        }
      }
    } else if (k === 'kind') {
      if (typeof v !== 'string') errs.push(fieldErrors.invalid(at, v, 'must be a string'));
      else if (v === '') errs.push(fieldErrors.required(at));
      else {
        const problems = isDNS1035Label(v.toLowerCase());
        if (problems.length > 0)
          errs.push(fieldErrors.invalid(at, v, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
      }
    } else if (k === 'metadata') {
      // kube gives a nameless embedded object a stand-in name: a name is not required here.
      const meta = isJsonObject(v) && !v.name ? { ...v, name: 'fakename' } : v === null ? { name: 'fakename' } : v;
      const namespaced = isJsonObject(meta) && typeof meta.namespace === 'string' && meta.namespace !== '';
      const metaErrs = validateObjectMeta(meta, { namespaced, validateName: pathSegmentName });
      // kube decodes metadata into ObjectMeta first and, when a field has the wrong type, reports only that.
      const typeErrs = metaErrs.filter((e) => e.type === 'FieldValueTypeInvalid');
      for (const e of typeErrs.length > 0 ? typeErrs : metaErrs) errs.push({ ...e, field: e.field.replace(/^metadata/, at) });
    }
  }
}
