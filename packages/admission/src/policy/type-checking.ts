import { formatGroupVersionKind } from '@kapi/apimachinery';
import type { CelType } from '@kapi/cel';
import type { ExpressionWarning, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyStatus } from '../admissionregistration/types.ts';
import { AdmissionCompiler } from '../cel/compiler.ts';

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** What type checking needs to know of the served kinds (kube's RESTMapper and SchemaResolver). */
export interface KindSchemas {
  /** The kinds served at a group/version/resource (none when not served). */
  kindsFor(gvr: { readonly group: string; readonly version: string; readonly resource: string }): readonly GroupVersionKind[];
  /** The CEL type of a kind's objects (from its OpenAPI or structural schema), or undefined when it has none. */
  typeOf(gvk: GroupVersionKind): CelType | undefined;
}

/** kube's maxTypesToCheck. */
const MAX_TYPES_TO_CHECK = 10;

/**
 * kube's typesToCheck: the kinds a policy's matchConstraints.resourceRules name without wildcards (a rule with a
 * wildcard group or version is skipped, wildcard and subresource resources are left out), at most ten, sorted by
 * group, version and kind.
 */
export function typesToCheck(policy: ValidatingAdmissionPolicy, schemas: KindSchemas): GroupVersionKind[] {
  const found = new Map<string, GroupVersionKind>();
  for (const rule of policy.spec?.matchConstraints?.resourceRules ?? []) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (groups.length === 0 || groups.some((g) => g.includes('*'))) continue;
    if (versions.length === 0 || versions.some((v) => v.includes('*'))) continue;
    const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
    if (resources.length === 0) continue;
    let count = 0;
    for (const group of [...groups].sort()) {
      for (const version of [...versions].sort()) {
        for (const resource of [...resources].sort()) {
          for (const gvk of schemas.kindsFor({ group, version, resource })) {
            found.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, gvk);
            if (++count === MAX_TYPES_TO_CHECK) return sortKinds([...found.values()]);
          }
        }
      }
    }
  }
  return sortKinds([...found.values()]);
}

function sortKinds(list: GroupVersionKind[]): GroupVersionKind[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return list.sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.kind, b.kind));
}

function paramsKind(policy: ValidatingAdmissionPolicy): GroupVersionKind | undefined {
  const pk = policy.spec?.paramKind;
  if (!pk?.apiVersion || !pk.kind) return undefined;
  const [group, version] = pk.apiVersion.includes('/') ? (pk.apiVersion.split('/', 2) as [string, string]) : ['', pk.apiVersion];
  return { group, version, kind: pk.kind };
}

/**
 * kube's TypeChecker.Check: each validation's expression and messageExpression is compiled once per matched kind
 * with `object`/`oldObject` typed by the kind's schema and `params` by the paramKind's (dyn when it has none; a
 * kind without a schema is not checked). Every failure is a warning on `spec.validations[i].expression` (or
 * `.messageExpression`) reading `<group/version, Kind=kind>: <cel-go issues>`, one line block per kind.
 * Type checking never changes what the policy does at admission.
 */
export function typeCheckPolicy(policy: ValidatingAdmissionPolicy, schemas: KindSchemas): ExpressionWarning[] {
  const kinds = typesToCheck(policy, schemas).flatMap((gvk) => {
    const type = schemas.typeOf(gvk);
    return type === undefined ? [] : [{ gvk, type }];
  });
  if (kinds.length === 0) return [];
  const pk = paramsKind(policy);
  const paramsType = pk ? schemas.typeOf(pk) : undefined;
  const hasParams = paramsType !== undefined;
  const compilers = kinds.map(({ gvk, type }) => ({
    gvk,
    compiler: new AdmissionCompiler({
      // kube declares params only when the paramKind's schema resolves
      params: hasParams,
      variables: policy.spec?.variables ?? [],
      objectType: type,
      ...(paramsType ? { paramsType } : {}),
    }),
  }));
  const check = (expression: string): string | undefined => {
    const messages: string[] = [];
    for (const { gvk, compiler } of compilers) {
      const issues = compiler.check(expression);
      if (issues !== undefined) messages.push(`${formatGroupVersionKind(gvk)}: ${issues}\n`);
    }
    return messages.length > 0 ? messages.join('\n') : undefined;
  };
  const warnings: ExpressionWarning[] = [];
  for (const [i, v] of (policy.spec?.validations ?? []).entries()) {
    const expression = check(v.expression);
    if (expression) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: expression });
    if (!v.messageExpression) continue;
    const message = check(v.messageExpression);
    if (message) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: message });
  }
  return warnings;
}

/** Writes a policy's status (the status subresource, applied by the type-checking controller's field manager). */
export interface PolicyStatusWriter {
  writeStatus(policy: ValidatingAdmissionPolicy, status: ValidatingAdmissionPolicyStatus): Promise<void>;
}

/** kube's field manager for the status it writes. */
export const TYPE_CHECKING_CONTROLLER_NAME = 'validatingadmissionpolicy-status-controller';

/**
 * kube's ValidatingAdmissionPolicy status controller: a policy whose generation is newer than its
 * status.observedGeneration is type-checked and gets `status.observedGeneration` and
 * `status.typeChecking.expressionWarnings` (kube's controller sets no conditions). Call `sync` when the
 * policies change (e.g. from an ObjectCache's onChange).
 */
export class PolicyTypeCheckingController {
  readonly #policies: () => readonly ValidatingAdmissionPolicy[];
  readonly #schemas: KindSchemas;
  readonly #writer: PolicyStatusWriter;
  /** Generations written, so a sync before the write shows in the source does not write again. */
  readonly #written = new Map<string, number>();

  constructor(options: {
    readonly policies: () => readonly ValidatingAdmissionPolicy[];
    readonly schemas: KindSchemas;
    readonly writer: PolicyStatusWriter;
  }) {
    this.#policies = options.policies;
    this.#schemas = options.schemas;
    this.#writer = options.writer;
  }

  async sync(): Promise<void> {
    const seen = new Set<string>();
    for (const policy of this.#policies()) {
      const key = `${policy.metadata.uid ?? ''}/${policy.metadata.name ?? ''}`;
      seen.add(key);
      await this.reconcile(policy, key);
    }
    for (const key of this.#written.keys()) if (!seen.has(key)) this.#written.delete(key);
  }

  async reconcile(policy: ValidatingAdmissionPolicy, key = `${policy.metadata.uid ?? ''}/${policy.metadata.name ?? ''}`): Promise<void> {
    const generation = policy.metadata.generation ?? 0;
    if (generation <= (policy.status?.observedGeneration ?? 0)) return;
    if ((this.#written.get(key) ?? 0) >= generation) return;
    const expressionWarnings = typeCheckPolicy(policy, this.#schemas);
    await this.#writer.writeStatus(policy, {
      ...policy.status,
      observedGeneration: generation,
      // kube applies no list when there is no warning
      typeChecking: expressionWarnings.length > 0 ? { expressionWarnings } : {},
    });
    this.#written.set(key, generation);
  }
}
