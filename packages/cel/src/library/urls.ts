import type { Environment } from '@marcbachmann/cel-js';
import { escapedPath, type GoURL, GoURLError, hostname, parseRequestURI, parseURL, port, query } from '../url/go-url.ts';

/** A parsed URL, CEL type `kubernetes.URL`. */
export class KubeURL {
  readonly url: GoURL;
  constructor(url: GoURL) {
    this.url = url;
  }
  equals(other: unknown): boolean {
    return other instanceof KubeURL && JSON.stringify(other.url) === JSON.stringify(this.url);
  }
}

/**
 * kube's URL library (k8s.io/apiserver/pkg/cel/library/urls.go): a URL must be an absolute URI or an
 * absolute path (url.ParseRequestURI, the OpenAPI "uri" format); components come from url.Parse.
 */
export function registerURLs(env: Environment): void {
  // no fields: the parsed parts are reached through the getters only
  env.registerType('kubernetes.URL', { ctor: KubeURL, fields: {} });
  env.registerFunction('url(string): kubernetes.URL', (s: string) => {
    try {
      parseRequestURI(s);
      // Parse again with Parse: ParseRequestURI keeps a fragment in the path or query
      return new KubeURL(parseURL(s));
    } catch (e) {
      if (e instanceof GoURLError) throw new Error(`URL parse error during conversion from string: ${e.message}`);
      throw e;
    }
  });
  env.registerFunction('isURL(string): bool', (s: string) => {
    try {
      parseRequestURI(s);
      return true;
    } catch {
      return false;
    }
  });
  env.registerFunction('kubernetes.URL.getScheme(): string', (u: KubeURL) => u.url.scheme);
  env.registerFunction('kubernetes.URL.getHost(): string', (u: KubeURL) => u.url.host);
  env.registerFunction('kubernetes.URL.getHostname(): string', (u: KubeURL) => hostname(u.url));
  env.registerFunction('kubernetes.URL.getPort(): string', (u: KubeURL) => port(u.url));
  env.registerFunction('kubernetes.URL.getEscapedPath(): string', (u: KubeURL) => escapedPath(u.url));
  env.registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (u: KubeURL) => query(u.url));
}
