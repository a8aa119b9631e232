import {
  type CABundle,
  RequestHeaderAuthenticator,
  type RequestHeaderAuthenticatorOptions,
  unionAuthenticator,
  withAuthenticatedGroup,
  X509Authenticator,
} from '@kapi/authn';
import type { AuthenticationOptions } from '../filters/authentication.ts';

/** kube-apiserver's certificate-based authentication flags, as GenericAPIServer options. */
export interface CertificateAuthenticationOptions {
  /** kube's --client-ca-file: client certificates these CAs signed authenticate as user CN in groups O. */
  clientCA?: CABundle | undefined;
  /**
   * kube's --requestheader-client-ca-file (`ca`), --requestheader-allowed-names and --requestheader-*-headers: a
   * front proxy's X-Remote-User / X-Remote-Group / X-Remote-Extra-* are believed on its client certificate.
   */
  requestHeader?: RequestHeaderAuthenticatorOptions | undefined;
}

/**
 * The authentication kube-apiserver builds from its flags (BuiltInAuthenticationOptions → authenticator.New): the
 * front proxy first, then client certificates, then the caller's authenticator, in one union; the certificate
 * users get `system:authenticated` as kube's group adder gives them. Undefined when nothing authenticates.
 */
export function certificateAuthentication(
  authentication: AuthenticationOptions | undefined,
  options: CertificateAuthenticationOptions,
): AuthenticationOptions | undefined {
  const certificates = [
    ...(options.requestHeader ? [new RequestHeaderAuthenticator(options.requestHeader)] : []),
    ...(options.clientCA ? [new X509Authenticator({ ca: options.clientCA })] : []),
  ];
  if (certificates.length === 0) return authentication;
  const authenticator = unionAuthenticator(
    withAuthenticatedGroup(unionAuthenticator(...certificates)),
    ...(authentication ? [authentication.authenticator] : []),
  );
  return {
    ...(authentication ?? {}),
    authenticator,
    ...(options.requestHeader ? { requestHeaders: options.requestHeader } : {}),
  };
}

/** The CAs whose client certificates a TLS server should ask for (serve's `tls.clientCA`). */
export function clientCAsOf(options: CertificateAuthenticationOptions): CABundle[] {
  return [...(options.clientCA ? [options.clientCA] : []), ...(options.requestHeader ? [options.requestHeader.ca] : [])];
}
