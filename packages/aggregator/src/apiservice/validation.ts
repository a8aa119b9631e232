import { type FieldError, fieldErrors, isDNS1123Subdomain } from '@kapi/apimachinery';
import { type APIService, type APIServiceStatus, AVAILABLE_CONDITION } from './types.ts';

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** utilvalidation.IsDNS1035Label (an API version is one). */
export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(v) > 63) errs.push('must be no more than 63 characters');
  if (!DNS1035_LABEL_RE.test(v))
    errs.push(
      `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL_FMT}')`,
    );
  return errs;
}

/** The name an APIService must have: `spec.version + "." + spec.group` ("v1." for the legacy group, as kube names it). */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

/**
 * kube-aggregator's ValidateAPIService beside ObjectMeta's generic rules (which the Store applies, with path-segment
 * names): the name is version.group, group and version DNS names, priorities in range, and a local APIService (no
 * spec.service) has neither caBundle nor insecureSkipTLSVerify; a remote one names its Service and not both.
 */
export function validateAPIService(obj: APIService): FieldError[] {
  const errs: FieldError[] = [];
  // The Store reports fields of the wrong type from the schema beside these rules: here they count as unset.
  const spec = typeof obj.spec === 'object' && obj.spec !== null ? obj.spec : {};
  const group = stringOr(spec.group);
  const version = stringOr(spec.version);
  const name = obj.metadata.name ?? '';
  const required = apiServiceName(group, version);
  if (name !== '' && name !== required)
    errs.push(fieldErrors.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));

  // The legacy group is the only one without a name, and only in v1.
  if (group.length === 0 && version !== 'v1')
    errs.push(fieldErrors.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group.length > 0) for (const msg of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid('spec.group', group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(fieldErrors.invalid('spec.version', version, msg));

  const groupPriority = numberOr(spec.groupPriorityMinimum);
  if (groupPriority <= 0 || groupPriority > 20000)
    errs.push(fieldErrors.invalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = numberOr(spec.versionPriority);
  if (versionPriority <= 0 || versionPriority > 1000)
    errs.push(fieldErrors.invalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));

  const caBundle = stringOr(spec.caBundle);
  const caBytes = caBundle ? Buffer.from(caBundle, 'base64').length : 0;
  const insecure = spec.insecureSkipTLSVerify === true;
  const service = typeof spec.service === 'object' && spec.service !== null ? spec.service : undefined;
  if (!service) {
    if (caBytes !== 0) errs.push(fieldErrors.invalid('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure)
      errs.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if (!service.namespace) errs.push(fieldErrors.required('spec.service.namespace', ''));
  if (!service.name) errs.push(fieldErrors.required('spec.service.name', ''));
  // The port's range is checked by kube's v1 validation of the ServiceReference (as webhooks' is).
  const port = numberOr(service.port, 443);
  if (port < 1 || port > 65535)
    errs.push(fieldErrors.invalid('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (insecure && caBytes > 0) errs.push(fieldErrors.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

const stringOr = (v: unknown): string => (typeof v === 'string' ? v : '');
const numberOr = (v: unknown, otherwise = 0): number => (typeof v === 'number' ? v : otherwise);

/** ValidateAPIServiceStatus: every condition's status is True, False or Unknown. */
export function validateAPIServiceStatus(status: APIServiceStatus | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const conditions = Array.isArray(status?.conditions) ? status.conditions : [];
  conditions.forEach((c, i) => {
    if (typeof c === 'object' && c !== null && c.status !== 'True' && c.status !== 'False' && c.status !== 'Unknown')
      errs.push(fieldErrors.notSupported(`status.conditions[${i}].status`, c.status, ['True', 'False', 'Unknown']));
  });
  return errs;
}

/** The Available condition of an APIService, if it has one. */
export function availableCondition(obj: APIService) {
  return obj.status?.conditions?.find((c) => c.type === AVAILABLE_CONDITION);
}
