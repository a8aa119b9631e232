import { OIDC_SIGNING_ALGORITHMS, OIDCAuthenticator, type OIDCOptions } from './oidc.ts';

const API_VERSIONS = new Set(['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.config.k8s.io/v1alpha1']);

export interface AuthenticationConfigurationOptions {
  /** The server's API audiences, which the issuers' tokens are good for (kube wraps each audience-agnostic). */
  apiAudiences?: readonly string[];
  /** Given to each authenticator (see OIDCOptions). */
  onDiscoveryError?: (err: Error) => void;
  retryIntervalMs?: number;
}

/** An AuthenticationConfiguration kube would refuse; `errors` are its field errors, `path: detail`. */
export class AuthenticationConfigurationError extends Error {
  readonly errors: readonly string[];
  constructor(errors: readonly string[]) {
    super(errors.length === 1 ? (errors[0] as string) : `[${errors.join(', ')}]`);
    this.name = 'AuthenticationConfigurationError';
    this.errors = errors;
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const CEL = 'CEL expressions are not supported yet (kapi has no CEL library)';

/**
 * The options of one OIDCAuthenticator per `jwt` entry of kube's structured AuthenticationConfiguration
 * (`--authentication-config`, apiserver.config.k8s.io/v1), checked as kube's validation checks them: https issuer
 * URLs, each once; a discovery URL other than the issuer's; audiences (several need `audienceMatchPolicy: MatchAny`);
 * the issuer's CA as PEM text; username (required) and groups claims with their prefix (required with a claim; '' for
 * none); a uid claim; claim validation rules `{claim, requiredValue}`. Any signing algorithm kube allows is accepted
 * (RS/ES/PS; never none or HMAC).
 *
 * Not yet: CEL (`expression` in claim mappings, `extra`, claim and user validation rules) — refused with a field
 * error until kapi has a CEL library — and the `anonymous` section (ignored here; the server's anonymous option
 * decides).
 */
export function jwtOptionsFromConfiguration(config: unknown, options: AuthenticationConfigurationOptions = {}): OIDCOptions[] {
  const errors: string[] = [];
  const out: OIDCOptions[] = [];
  if (!isObj(config)) throw new AuthenticationConfigurationError(['AuthenticationConfiguration: must be an object']);
  if (typeof config.apiVersion !== 'string' || !API_VERSIONS.has(config.apiVersion)) {
    errors.push(`apiVersion: Unsupported value: ${JSON.stringify(config.apiVersion)}: supported values: "apiserver.config.k8s.io/v1"`);
  }
  if (config.kind !== 'AuthenticationConfiguration') {
    errors.push(`kind: Unsupported value: ${JSON.stringify(config.kind)}: supported values: "AuthenticationConfiguration"`);
  }
  const jwts = config.jwt ?? [];
  if (!Array.isArray(jwts)) errors.push('jwt: Invalid value: must be a list');
  const seen = new Set<string>();
  (Array.isArray(jwts) ? jwts : []).forEach((jwt: unknown, i: number) => {
    const at = `jwt[${i}]`;
    if (!isObj(jwt)) {
      errors.push(`${at}: Invalid value: must be an object`);
      return;
    }
    const issuer = isObj(jwt.issuer) ? jwt.issuer : {};
    const url = issuer.url;
    if (typeof url !== 'string' || url === '') errors.push(`${at}.issuer.url: Required value`);
    else if (URL.parse(url)?.protocol !== 'https:')
      errors.push(`${at}.issuer.url: Invalid value: ${JSON.stringify(url)}: URL scheme must be https`);
    else if (seen.has(url)) errors.push(`${at}.issuer.url: Duplicate value: ${JSON.stringify(url)}`);
    if (typeof url === 'string') seen.add(url);
    const discoveryURL = issuer.discoveryURL;
    if (discoveryURL !== undefined && discoveryURL !== '') {
      if (typeof discoveryURL !== 'string' || URL.parse(discoveryURL)?.protocol !== 'https:') {
        errors.push(`${at}.issuer.discoveryURL: Invalid value: ${JSON.stringify(discoveryURL)}: URL scheme must be https`);
      } else if (discoveryURL.replace(/\/$/, '') === String(url).replace(/\/$/, '')) {
        errors.push(`${at}.issuer.discoveryURL: Invalid value: ${JSON.stringify(discoveryURL)}: discoveryURL must be different from URL`);
      }
    }
    const audiences = issuer.audiences;
    if (!Array.isArray(audiences) || audiences.length === 0)
      errors.push(`${at}.issuer.audiences: Required value: at least one issuer.audiences is required`);
    else {
      if (!audiences.every((a) => typeof a === 'string' && a !== ''))
        errors.push(`${at}.issuer.audiences: Invalid value: audiences must be non-empty strings`);
      if (new Set(audiences).size !== audiences.length) errors.push(`${at}.issuer.audiences: Duplicate value: audiences must be unique`);
      const policy = issuer.audienceMatchPolicy ?? '';
      if (audiences.length > 1 && policy !== 'MatchAny') {
        errors.push(
          `${at}.issuer.audienceMatchPolicy: Invalid value: ${JSON.stringify(policy)}: audienceMatchPolicy must be MatchAny for multiple audiences`,
        );
      } else if (policy !== '' && policy !== 'MatchAny') {
        errors.push(
          `${at}.issuer.audienceMatchPolicy: Invalid value: ${JSON.stringify(policy)}: audienceMatchPolicy must be empty or MatchAny for single audience`,
        );
      }
    }
    const ca = issuer.certificateAuthority;
    if (ca !== undefined && typeof ca !== 'string') errors.push(`${at}.issuer.certificateAuthority: Invalid value: must be PEM text`);

    const requiredClaims: Record<string, string> = Object.create(null);
    const rules = jwt.claimValidationRules ?? [];
    (Array.isArray(rules) ? rules : []).forEach((rule: unknown, j: number) => {
      const r = isObj(rule) ? rule : {};
      if (r.expression !== undefined) errors.push(`${at}.claimValidationRules[${j}].expression: Forbidden: ${CEL}`);
      else if (typeof r.claim !== 'string' || r.claim === '')
        errors.push(`${at}.claimValidationRules[${j}].claim: Required value: claim or expression is required`);
      else if (Object.hasOwn(requiredClaims, r.claim))
        errors.push(`${at}.claimValidationRules[${j}].claim: Duplicate value: ${JSON.stringify(r.claim)}`);
      else requiredClaims[r.claim] = typeof r.requiredValue === 'string' ? r.requiredValue : '';
    });

    const mappings = isObj(jwt.claimMappings) ? jwt.claimMappings : {};
    const username = isObj(mappings.username) ? mappings.username : undefined;
    const groups = isObj(mappings.groups) ? mappings.groups : undefined;
    const uid = isObj(mappings.uid) ? mappings.uid : undefined;
    if (!username || (username.claim === undefined && username.expression === undefined)) {
      errors.push(`${at}.claimMappings.username: Required value: claim or expression is required`);
    }
    for (const [name, m] of [
      ['username', username],
      ['groups', groups],
    ] as const) {
      if (!m) continue;
      if (m.expression !== undefined) errors.push(`${at}.claimMappings.${name}.expression: Forbidden: ${CEL}`);
      else if (m.claim !== undefined && typeof m.prefix !== 'string') {
        errors.push(
          `${at}.claimMappings.${name}.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing`,
        );
      }
    }
    if (uid?.expression !== undefined) errors.push(`${at}.claimMappings.uid.expression: Forbidden: ${CEL}`);
    if (mappings.extra !== undefined) errors.push(`${at}.claimMappings.extra: Forbidden: ${CEL}`);
    if (jwt.userValidationRules !== undefined) errors.push(`${at}.userValidationRules: Forbidden: ${CEL}`);

    out.push({
      issuerURL: String(url),
      ...(typeof discoveryURL === 'string' && discoveryURL !== '' ? { discoveryURL } : {}),
      audiences: Array.isArray(audiences) ? (audiences as string[]) : [],
      ...(typeof ca === 'string' ? { ca } : {}),
      usernameClaim: typeof username?.claim === 'string' ? username.claim : '',
      usernamePrefix: typeof username?.prefix === 'string' ? username.prefix : '',
      ...(typeof groups?.claim === 'string' && groups.claim !== ''
        ? { groupsClaim: groups.claim, groupsPrefix: String(groups.prefix ?? '') }
        : {}),
      ...(typeof uid?.claim === 'string' && uid.claim !== '' ? { uidClaim: uid.claim } : {}),
      ...(Object.keys(requiredClaims).length > 0 ? { requiredClaims } : {}),
      signingAlgorithms: OIDC_SIGNING_ALGORITHMS,
      ...(options.apiAudiences ? { apiAudiences: options.apiAudiences } : {}),
      ...(options.onDiscoveryError ? { onDiscoveryError: options.onDiscoveryError } : {}),
      ...(options.retryIntervalMs !== undefined ? { retryIntervalMs: options.retryIntervalMs } : {}),
    });
  });
  if (errors.length > 0) throw new AuthenticationConfigurationError(errors);
  return out;
}

/** One OIDCAuthenticator per `jwt` entry of a valid AuthenticationConfiguration (see jwtOptionsFromConfiguration). */
export function jwtAuthenticatorsFromConfiguration(config: unknown, options: AuthenticationConfigurationOptions = {}): OIDCAuthenticator[] {
  return jwtOptionsFromConfiguration(config, options).map((o) => new OIDCAuthenticator(o));
}
