import type { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { bearerTokenSource, type CABundle, parseCABundle, type WebhookClientConfig, webhookTLSOptions } from '@kapi/authn';
import {
  AUTHENTICATION_INFO_NAME,
  AUTHENTICATION_INFO_NAMESPACE,
  type AuthenticationInfo,
  parseAuthenticationInfo,
} from './authentication-info.ts';

export interface AuthenticationInfoSourceOptions {
  /** After a watch ends or fails, wait this long before reading again. Default 1000 ms. */
  retryDelayMs?: number;
  /** Called when the ConfigMap could not be read or did not parse (the last good content stays in force). */
  onError?: (err: unknown) => void;
}

const EMPTY: AuthenticationInfo = {
  clientCA: '',
  requestHeaderCA: '',
  allowedNames: [],
  usernameHeaders: [],
  uidHeaders: [],
  groupHeaders: [],
  extraHeaderPrefixes: [],
};

const PATH = `/api/v1/namespaces/${AUTHENTICATION_INFO_NAMESPACE}/configmaps`;
const SELECTOR = `fieldSelector=${encodeURIComponent(`metadata.name=${AUTHENTICATION_INFO_NAME}`)}`;

/** A CA bundle taken from one key of the ConfigMap; empty while the key is absent. */
class ConfigMapCABundle implements CABundle {
  #certs: readonly X509Certificate[] = [];
  #pem = '';
  readonly #listeners = new Set<() => void>();

  certificates(): readonly X509Certificate[] {
    return this.#certs;
  }
  pem(): string {
    return this.#pem;
  }
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  /** Throws (changing nothing) when `pem` holds no valid certificate. */
  set(pem: string): void {
    if (pem === this.#pem) return;
    const certs = pem.trim() === '' ? [] : parseCABundle(pem, AUTHENTICATION_INFO_NAME);
    this.#certs = certs;
    this.#pem = pem;
    for (const l of this.#listeners) l();
  }
}

/**
 * The main server's kube-system/extension-apiserver-authentication ConfigMap as an extension server reads it
 * (kube's ConfigMapCAController and DynamicRequestHeaderController): read through the main server's API with the
 * extension server's credentials, then watched, so a CA or allowed name published there takes effect without a
 * restart. `clientCA` and `requestHeaderCA` are CA bundles that follow it (empty while absent).
 */
export class AuthenticationInfoSource {
  readonly clientCA: CABundle;
  readonly requestHeaderCA: CABundle;
  readonly #clientCA = new ConfigMapCABundle();
  readonly #requestHeaderCA = new ConfigMapCABundle();
  readonly #token: () => string | undefined;
  readonly #base: string;
  readonly #agent: HttpAgent | HttpsAgent;
  readonly #retryDelayMs: number;
  readonly #onError: (err: unknown) => void;
  readonly #listeners = new Set<() => void>();
  #info: AuthenticationInfo = EMPTY;
  #closed = false;
  #watching: IncomingMessage | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(config: WebhookClientConfig, options: AuthenticationInfoSourceOptions = {}) {
    this.clientCA = this.#clientCA;
    this.requestHeaderCA = this.#requestHeaderCA;
    this.#token = bearerTokenSource(config);
    this.#base = config.server.replace(/\/+$/, '');
    this.#agent = this.#base.startsWith('https:')
      ? new HttpsAgent({ keepAlive: true, ...webhookTLSOptions(config) })
      : new HttpAgent({ keepAlive: true });
    this.#retryDelayMs = options.retryDelayMs ?? 1000;
    this.#onError = options.onError ?? (() => {});
  }

  /** Whether close() was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The content last read. */
  get info(): AuthenticationInfo {
    return this.#info;
  }

  /** Calls `listener` after the content changed; returns a function that stops it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the ConfigMap (an error if the main server cannot be asked), then keeps watching it. */
  async start(): Promise<void> {
    const rv = await this.#list();
    this.#watch(rv);
  }

  /** Stops watching and closes the connections. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#watching?.destroy();
    this.#agent.destroy();
  }

  #apply(data: Record<string, string> | undefined): void {
    let info: AuthenticationInfo;
    try {
      info = parseAuthenticationInfo(data);
      // Both bundles are checked before either changes.
      if (info.clientCA.trim()) parseCABundle(info.clientCA, 'client-ca-file');
      if (info.requestHeaderCA.trim()) parseCABundle(info.requestHeaderCA, 'requestheader-client-ca-file');
    } catch (err) {
      this.#onError(err);
      return;
    }
    if (JSON.stringify(info) === JSON.stringify(this.#info)) return;
    this.#info = info;
    this.#clientCA.set(info.clientCA);
    this.#requestHeaderCA.set(info.requestHeaderCA);
    for (const l of this.#listeners) l();
  }

  /** Lists the one ConfigMap (absent = empty content); returns the list's resourceVersion to watch from. */
  async #list(): Promise<string> {
    const res = await this.#get(`${PATH}?${SELECTOR}`);
    const body = await readBody(res);
    if (res.statusCode !== 200)
      throw new Error(
        `unable to load configmap ${AUTHENTICATION_INFO_NAMESPACE}/${AUTHENTICATION_INFO_NAME}: the server answered ${res.statusCode}: ${body.slice(0, 200)}`,
      );
    const list = JSON.parse(body) as { metadata?: { resourceVersion?: string }; items?: { data?: Record<string, string> }[] };
    this.#apply(list.items?.[0]?.data);
    return list.metadata?.resourceVersion ?? '';
  }

  #get(path: string): Promise<IncomingMessage> {
    const send = this.#base.startsWith('https:') ? httpsRequest : httpRequest;
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = this.#token();
    if (token) headers.authorization = `Bearer ${token}`;
    return new Promise((resolve, reject) => {
      const req = send(`${this.#base}${path}`, { method: 'GET', agent: this.#agent, headers }, resolve);
      req.on('error', reject);
      req.end();
    });
  }

  #retry(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#list().then(
        (rv) => this.#watch(rv),
        (err: unknown) => {
          this.#onError(err);
          this.#retry();
        },
      );
    }, this.#retryDelayMs);
    this.#timer.unref();
  }

  /** Follows the ConfigMap's changes from `rv`; when the watch ends for any reason, lists again. */
  #watch(rv: string): void {
    if (this.#closed) return;
    const q = `${SELECTOR}&watch=true&allowWatchBookmarks=true${rv ? `&resourceVersion=${encodeURIComponent(rv)}` : ''}`;
    this.#get(`${PATH}?${q}`).then(
      (res) => {
        if (this.#closed) return void res.destroy();
        if (res.statusCode !== 200) {
          void readBody(res).then((b) => this.#onError(new Error(`watch of the configmap answered ${res.statusCode}: ${b.slice(0, 200)}`)));
          return this.#retry();
        }
        this.#watching = res;
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (line) this.#event(line);
          }
        });
        const ended = (): void => {
          if (this.#watching !== res) return;
          this.#watching = undefined;
          this.#retry();
        };
        res.on('end', ended);
        res.on('close', ended);
        res.on('error', (err) => this.#onError(err));
      },
      (err: unknown) => {
        this.#onError(err);
        this.#retry();
      },
    );
  }

  #event(line: string): void {
    let ev: { type?: string; object?: { data?: Record<string, string> } };
    try {
      ev = JSON.parse(line);
    } catch (err) {
      this.#onError(err);
      return;
    }
    if (ev.type === 'ADDED' || ev.type === 'MODIFIED') this.#apply(ev.object?.data);
    else if (ev.type === 'DELETED') this.#apply(undefined);
    else if (ev.type === 'ERROR') {
      // e.g. 410 Gone: start over from a fresh list.
      this.#watching?.destroy();
    }
  }
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      body += c;
    });
    res.on('end', () => resolve(body));
    res.on('error', reject);
  });
}
