import type { Filter, RequestContext } from '../filters/context.ts';

/** k8s.io/apimachinery/pkg/version.Info, the body of GET /version (field order as kube). */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface VersionOptions {
  /** Kubernetes API major version kapi claims; default "1". */
  major?: string;
  /**
   * Kubernetes API minor version kapi claims; default "32". kubectl warns when client and server
   * differ by more than one minor version, so this should track the API level kapi implements.
   */
  minor?: string;
  /** kapi's own version (semver, no leading v); default "0.1.0". */
  kapiVersion?: string;
  /** Overrides the computed `v<major>.<minor>.0-kapi.<kapiVersion>`. */
  gitVersion?: string;
  /** default "" */
  gitCommit?: string;
  /** "clean" | "dirty" | ""; default "" */
  gitTreeState?: string;
  /** RFC 3339; default "1970-01-01T00:00:00Z" (kube's unset value) */
  buildDate?: string;
  /** The runtime, in the `goVersion` slot; default `process.version` (e.g. "v24.1.0"). */
  goVersion?: string;
  /** default "node" */
  compiler?: string;
  /** `<os>/<arch>` with Go's arch names (x64 → amd64); default from `process`. */
  platform?: string;
}

const GO_ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };

/** Go-style `<GOOS>/<GOARCH>` for this process (win32 → windows, x64 → amd64). */
export function currentPlatform(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  return `${os}/${GO_ARCH[process.arch] ?? process.arch}`;
}

/**
 * Builds kapi's version.Info. `gitVersion` defaults to `v<major>.<minor>.0-kapi.<kapiVersion>`,
 * e.g. `v1.32.0-kapi.0.1.0`: a semver prerelease of the Kubernetes version it emulates, so clients
 * that parse gitVersion (kubectl, client-go discovery) see 1.32 and skew warnings stay quiet.
 */
export function kapiVersionInfo(options: VersionOptions = {}): VersionInfo {
  const major = options.major ?? '1';
  const minor = options.minor ?? '32';
  const kapiVersion = options.kapiVersion ?? '0.1.0';
  return {
    major,
    minor,
    gitVersion: options.gitVersion ?? `v${major}.${minor}.0-kapi.${kapiVersion}`,
    gitCommit: options.gitCommit ?? '',
    gitTreeState: options.gitTreeState ?? '',
    buildDate: options.buildDate ?? '1970-01-01T00:00:00Z',
    goVersion: options.goVersion ?? process.version,
    compiler: options.compiler ?? 'node',
    platform: options.platform ?? currentPlatform(),
  };
}

/**
 * Serves GET (and HEAD) /version with the version.Info JSON, indented with two spaces and
 * `Content-Type: application/json` as kube's responsewriters.WriteRawJSON does. A Filter: other
 * paths and methods go to `next` (kube's go-restful route is GET only). `info` may be a full
 * VersionInfo or options for {@link kapiVersionInfo}.
 */
export function versionHandler(info: VersionInfo | VersionOptions = {}): Filter {
  const full = isFullInfo(info) ? { ...info } : kapiVersionInfo(info);
  const body = JSON.stringify(full, null, 2);
  return async (ctx: RequestContext, next) => {
    const method = ctx.req.method ?? 'GET';
    if (ctx.url.pathname !== '/version' || (method !== 'GET' && method !== 'HEAD')) return next();
    ctx.res.statusCode = 200;
    ctx.res.setHeader('Content-Type', 'application/json');
    ctx.res.setHeader('Content-Length', Buffer.byteLength(body));
    ctx.res.end(body);
  };
}

function isFullInfo(info: VersionInfo | VersionOptions): info is VersionInfo {
  const i = info as Partial<VersionInfo>;
  return (
    typeof i.major === 'string' &&
    typeof i.minor === 'string' &&
    typeof i.gitVersion === 'string' &&
    typeof i.gitCommit === 'string' &&
    typeof i.gitTreeState === 'string' &&
    typeof i.buildDate === 'string' &&
    typeof i.goVersion === 'string' &&
    typeof i.compiler === 'string' &&
    typeof i.platform === 'string'
  );
}
