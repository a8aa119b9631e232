import protobuf from 'protobufjs';
import { kubernetesMessageOf } from './codec.ts';
import { kubeType, NOT_JSON_OBJECTS } from './schema.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The message a field holds when its JSON form is an object of fields, else undefined. */
function objectMessage(field: protobuf.Field): protobuf.Type | undefined {
  const t = field.resolvedType;
  return t instanceof protobuf.Type && !NOT_JSON_OBJECTS.has(t.name) ? t : undefined;
}

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/** TypeMeta's fields, which a kind's message leaves out. */
const TYPE_META = new Set(['apiVersion', 'kind']);

function walk(type: protobuf.Type, value: Record<string, unknown>, path: string, out: string[]): void {
  for (const key in value) {
    if (!Object.hasOwn(value, key) || (path === '' && TYPE_META.has(key))) continue;
    const field = Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
    if (!field) {
      out.push(join(path, key));
      delete value[key];
      continue;
    }
    const message = objectMessage(field);
    const v = value[key];
    if (!message) continue;
    const at = join(path, key);
    if (field.map) {
      if (isRecord(v)) for (const k in v) if (Object.hasOwn(v, k) && isRecord(v[k])) walk(message, v[k], `${at}[${k}]`, out);
    } else if (field.repeated) {
      if (Array.isArray(v))
        v.forEach((item, i) => {
          if (isRecord(item)) walk(message, item, `${at}[${i}]`, out);
        });
    } else if (isRecord(v)) walk(message, v, at, out);
  }
}

/**
 * Drops from `body` (the caller's own, changed in place) the fields that the Go type of `kind` in `apiVersion` does not
 * declare, as decoding into the Go type drops them, and answers their paths (`spec.foo`, `spec.requirements[0].bar`,
 * `metadata.foo`), which kube's strict decoding reports. Known for the kinds the protobuf codec models (their messages
 * list the Go fields by their JSON names); apiVersion and kind are TypeMeta's. Undefined, and nothing dropped, for a
 * kind it does not model.
 */
export function dropUndeclaredFields(apiVersion: string, kind: string, body: Record<string, unknown>): string[] | undefined {
  const message = kubernetesMessageOf(apiVersion, kind);
  if (message === undefined) return undefined;
  const out: string[] = [];
  walk(kubeType(message), body, '', out);
  return out;
}
