import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { LRUCache } from 'lru-cache';
import type { CABundle } from './ca-bundle.ts';
import { peerCertificates } from './peer-certificates.ts';
import { verifyClientCertificate } from './verify-chain.ts';

interface Verified {
  /** The CA bundle's certificate list it was verified against (a reload makes a new list). */
  readonly roots: readonly X509Certificate[];
  readonly chain: readonly X509Certificate[];
  /** When every certificate of the chain is valid. */
  readonly notBefore: number;
  readonly notAfter: number;
}

/**
 * Verifies the client certificate of a TLS connection against a CA bundle for client auth, remembering what it can:
 * reading the presented chain (node's getPeerCertificate(true)) costs a few hundred microseconds and checking its
 * signatures about as much, on every request of a connection otherwise.
 * - The presented chain is read once per connection, keyed by the peer's TLS Finished message (unique to a handshake,
 *   and reachable through the per-stream socket proxies of HTTP/2, where the socket object differs per request).
 *   (node's getPeerX509Certificate is not used: its first call takes the chain away from later reads.)
 * - A verified chain is remembered by its leaf's SHA-256 while the bundle is the same list and every certificate of
 *   the chain is within its validity: the handshake proved the client holds the leaf's key, so the same leaf needs no
 *   new signature checks. Failures are not remembered.
 */
export class ClientCertificateVerifier {
  readonly #ca: CABundle;
  readonly #now: () => number;
  readonly #verified: LRUCache<string, Verified>;
  readonly #presented: LRUCache<string, X509Certificate[]>;

  constructor(ca: CABundle, now: () => number = Date.now, max = 1024) {
    this.#ca = ca;
    this.#now = now;
    this.#verified = new LRUCache({ max });
    this.#presented = new LRUCache({ max });
  }

  /** What the client of this connection presented, leaf first (empty: no certificate). */
  #presentedBy(socket: TLSSocket | undefined): X509Certificate[] {
    const finished = typeof socket?.getPeerFinished === 'function' ? socket.getPeerFinished() : undefined;
    if (!finished) return peerCertificates(socket);
    const key = finished.toString('base64');
    let presented = this.#presented.get(key);
    if (!presented) {
      presented = peerCertificates(socket);
      this.#presented.set(key, presented);
    }
    return presented;
  }

  /** The verified chain (leaf first), `null` when the client sent no certificate; throws kube's error if it does not verify. */
  verify(socket: TLSSocket | undefined): readonly X509Certificate[] | null {
    const presented = this.#presentedBy(socket);
    const leaf = presented[0];
    if (!leaf) return null;
    const roots = this.#ca.certificates();
    const now = this.#now();
    const key = leaf.fingerprint256;
    const hit = this.#verified.get(key);
    if (hit && hit.roots === roots && hit.notBefore <= now && now <= hit.notAfter) return hit.chain;
    const chain = verifyClientCertificate(leaf, presented.slice(1), this.#ca, now);
    this.#verified.set(key, {
      roots,
      chain,
      notBefore: Math.max(...chain.map((c) => Date.parse(c.validFrom))),
      notAfter: Math.min(...chain.map((c) => Date.parse(c.validTo))),
    });
    return chain;
  }
}
