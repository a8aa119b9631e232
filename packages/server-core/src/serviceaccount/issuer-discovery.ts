import type { ServiceAccountTokenIssuer } from '@kapi/authn';
import { writeJSON } from '../endpoints/response.ts';
import type { Filter } from '../filters/context.ts';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

export interface IssuerDiscoveryOptions {
  issuer: ServiceAccountTokenIssuer;
  /**
   * kube's --service-account-jwks-uri. Default: `<issuer>/openid/v1/jwks` (the issuer URL is this server's). A function
   * is asked on each request: for a server that learns its own URL (a port chosen at listen time) after it is built.
   */
  jwksURI?: string | (() => string);
}

/**
 * kube's ServiceAccountIssuerDiscovery: GET /.well-known/openid-configuration (issuer, jwks_uri, response_types_supported
 * ["id_token"], subject_types_supported ["public"], id_token_signing_alg_values_supported) and GET /openid/v1/jwks (the
 * public keys, application/jwk-set+json), both cacheable for an hour, so that other systems can verify this server's
 * service-account tokens as OIDC id tokens.
 */
export function issuerDiscoveryHandler(options: IssuerDiscoveryOptions): Filter {
  const { issuer } = options;
  const jwksURI = options.jwksURI ?? `${issuer.issuer.replace(/\/+$/, '')}${JWKS_PATH}`;
  const algs = [...new Set(issuer.verificationKeys.map((k) => k.alg))].sort();
  const configuration = (): string =>
    JSON.stringify({
      issuer: issuer.issuer,
      jwks_uri: typeof jwksURI === 'function' ? jwksURI() : jwksURI,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: algs,
    });
  let jwks: Promise<string> | undefined;
  return async (ctx, next) => {
    const path = ctx.url.pathname;
    if (path !== OPENID_CONFIGURATION_PATH && path !== JWKS_PATH) return next();
    const method = ctx.req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') return next();
    // kube: public, max-age=3600 on both (keys rotate rarely; relying parties refetch on an unknown kid).
    ctx.res.setHeader('Cache-Control', 'public, max-age=3600');
    if (path === OPENID_CONFIGURATION_PATH) return writeJSON(ctx, 200, configuration());
    jwks ??= issuer.jwks().then((set) => JSON.stringify(set));
    return writeJSON(ctx, 200, await jwks, 'application/jwk-set+json');
  };
}
